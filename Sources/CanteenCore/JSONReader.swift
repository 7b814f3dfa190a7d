import CanteenJSON

/// One problem found while reading a JSON document: where (`items[3].price`) and what.
public struct ValidationProblem: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var code: ErrorCode

    public init(path: String, message: String, code: ErrorCode = .invalidField) {
        self.path = path
        self.message = message
        self.code = code
    }

    public var description: String { "\(path.isEmpty ? "(document)" : path): \(message)" }
}

/// Collects every problem of a document instead of stopping at the first.
public final class ValidationProblems {
    public private(set) var all: [ValidationProblem] = []

    public init() {}

    public func add(_ path: String, _ message: String, code: ErrorCode = .invalidField) {
        all.append(ValidationProblem(path: path, message: message, code: code))
    }

    public var isEmpty: Bool { all.isEmpty }

    /// Throws the problems as one error (the first one names the field).
    public func throwIfAny() throws(ValidationError) {
        if !all.isEmpty { throw ValidationError(problems: all) }
    }
}

/// A document that failed validation, with every problem found.
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    public var problems: [ValidationProblem]

    public init(problems: [ValidationProblem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// The first problem as a domain error (what an answer reports).
    public var firstError: CanteenError {
        let first = problems.first ?? ValidationProblem(path: "", message: "invalid document")
        return CanteenError(
            .invalid, code: first.code, message: first.message,
            field: first.path.isEmpty ? nil : first.path)
    }
}

/// Reads one JSON object field by field, recording missing, mistyped and unknown fields.
///
/// Every accessor returns nil after recording a problem, so callers read every field and the
/// document reports all of its problems at once. Call `finish()` to report unknown fields.
public struct JSONObjectReader {
    public let path: String
    public let problems: ValidationProblems
    private let object: [String: JSONValue]
    /// The keys asked for (sized for the object's keys once, rather than grown key by key).
    private var known: Set<String>

    /// Nil (with a problem recorded) when `value` is not an object.
    public init?(_ value: JSONValue, path: String, problems: ValidationProblems) {
        guard case .object(let object) = value else {
            problems.add(path, "expected an object, found \(value.typeName)", code: .invalidType)
            return nil
        }
        self.object = object
        known = Set(minimumCapacity: object.count)
        self.path = path
        self.problems = problems
    }

    public func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    /// Whether `key` is present with the value null (which the accessors read as absent).
    public func isNull(_ key: String) -> Bool { object[key] == .null }

    /// The raw value, marking the key as known. Records `missing_field` when required and absent.
    public mutating func value(_ key: String, required: Bool = true) -> JSONValue? {
        known.insert(key)
        guard let value = object[key], value != .null else {
            if required { problems.add(childPath(key), "is required", code: .missingField) }
            return nil
        }
        return value
    }

    /// A string field. Control characters other than line breaks and tabs are refused in every
    /// string; with `limit`, the text must also fit that many characters (and 4 bytes each) and,
    /// for names, hold no line break either.
    public mutating func string(
        _ key: String, required: Bool = true, nonEmpty: Bool = true,
        limit: Int? = nil, kind: TextLimits.Kind = .freeText
    ) -> String? {
        guard let value = value(key, required: required) else { return nil }
        guard case .string(let string) = value else {
            problems.add(childPath(key), "expected a string, found \(value.typeName)", code: .invalidType)
            return nil
        }
        if nonEmpty && Self.isBlank(string) {
            problems.add(childPath(key), "must not be empty")
            return nil
        }
        if let problem = TextLimits.problem(
            string, maxCharacters: limit ?? .max / TextLimits.bytesPerCharacter,
            kind: limit == nil ? .freeText : kind)
        {
            problems.add(childPath(key), problem.message, code: problem.code)
            return nil
        }
        return string
    }

    public mutating func bool(_ key: String, required: Bool = true) -> Bool? {
        guard let value = value(key, required: required) else { return nil }
        guard case .bool(let bool) = value else {
            problems.add(childPath(key), "expected true or false, found \(value.typeName)", code: .invalidType)
            return nil
        }
        return bool
    }

    /// A whole number within `range`; fractional numbers get `fractionalMessage` when given.
    public mutating func integer(
        _ key: String, required: Bool = true, in range: ClosedRange<Int64>,
        fractionalMessage: String? = nil
    ) -> Int64? {
        guard let value = value(key, required: required) else { return nil }
        return JSONObjectReader.integer(
            value, path: childPath(key), in: range,
            fractionalMessage: fractionalMessage, problems: problems)
    }

    public static func integer(
        _ value: JSONValue, path: String, in range: ClosedRange<Int64>,
        fractionalMessage: String? = nil, problems: ValidationProblems
    ) -> Int64? {
        switch value {
        case .int(let int):
            guard range.contains(int) else {
                problems.add(path, JSONObjectReader.rangeMessage(range, found: "\(int)"), code: .outOfRange)
                return nil
            }
            return int
        case .double(let double):
            problems.add(path, fractionalMessage ?? "expected a whole number, found \(double)", code: .invalidType)
            return nil
        default:
            problems.add(path, "expected a whole number, found \(value.typeName)", code: .invalidType)
            return nil
        }
    }

    private static func rangeMessage(_ range: ClosedRange<Int64>, found: String) -> String {
        if range.upperBound == .max { return "must be at least \(range.lowerBound), found \(found)" }
        return "must be between \(range.lowerBound) and \(range.upperBound), found \(found)"
    }

    public mutating func array(_ key: String, required: Bool = true) -> [JSONValue]? {
        guard let value = value(key, required: required) else { return nil }
        guard case .array(let array) = value else {
            problems.add(childPath(key), "expected an array, found \(value.typeName)", code: .invalidType)
            return nil
        }
        return array
    }

    public mutating func object(_ key: String, required: Bool = true) -> JSONObjectReader? {
        guard let value = value(key, required: required) else { return nil }
        return JSONObjectReader(value, path: childPath(key), problems: problems)
    }

    /// Each element of an array field with its path (`items[3]`).
    public mutating func elements(_ key: String, required: Bool = true) -> [(path: String, value: JSONValue)] {
        guard let array = array(key, required: required) else { return [] }
        let base = childPath(key)
        return array.enumerated().map { ("\(base)[\($0.offset)]", $0.element) }
    }

    /// The object's keys in sorted order (for map-shaped objects such as translations).
    public var keys: [String] { object.keys.sorted() }

    /// Records every key that no accessor asked for: typos such as `pirce`, in sorted order.
    public func finish() {
        for key in object.keys.filter({ !known.contains($0) }).sorted() {
            problems.add(childPath(key), "unknown field", code: .unknownField)
        }
    }

    /// Whether every character is white space (an empty text included). A visible ASCII character
    /// settles it without walking the characters: it starts a character that is not white space.
    static func isBlank(_ text: String) -> Bool {
        for byte in text.utf8 {
            if byte > 0x20 && byte < 0x7F { return false }
            if byte >= 0x80 { break }
        }
        return text.allSatisfy(\.isWhitespace)
    }
}
