import CanteenCore
import CanteenJSON
import Foundation

/// Checks a JSON value against a schema of `openapi.yaml` (the JSON Schema keywords the document
/// uses: `$ref`, `type` with `"null"`, `nullable`, `enum`, `const`, `properties`, `required`,
/// `additionalProperties`, `items`, `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/
/// `maximum`, `pattern`, `oneOf`/`anyOf`/`allOf`/`not`, and the `date-time` format). A keyword it does
/// not know is itself a problem, so the document cannot drift past what is checked.
struct SchemaValidator {
    let root: JSONValue
    /// Whether an object may carry members its schema does not name when the schema says nothing
    /// of `additionalProperties`. Answers are checked strictly (a member the server sends must be
    /// documented); requests leniently, as JSON Schema reads them.
    var strictObjects = false

    static let knownKeywords: Set<String> = [
        "$ref", "type", "nullable", "enum", "const", "properties", "required", "additionalProperties", "items",
        "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern", "oneOf", "anyOf",
        "allOf", "not", "format", "description", "example", "examples", "default", "title", "deprecated", "readOnly",
        "writeOnly", "minProperties", "maxProperties", "propertyNames", "uniqueItems",
    ]

    /// Every way `value` breaks `schema`, each naming the JSON path; empty when it conforms.
    func problems(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        check(value, schema, path)
    }

    /// - Parameter partOfAllOf: the schema is one part of an `allOf`, whose members the whole
    ///   schema's check accounts for.
    private func check(_ value: JSONValue, _ rawSchema: JSONValue, _ path: String, partOfAllOf: Bool = false)
        -> [String]
    {
        let schema: JSONValue
        do { schema = try OpenAPIDocument.resolve(rawSchema, in: root) } catch { return ["\(path): \(error)"] }
        guard case .object(let keywords) = schema else {
            return schema == .bool(true) ? [] : ["\(path): the schema is not an object"]
        }
        var problems: [String] = []
        for keyword in keywords.keys where !Self.knownKeywords.contains(keyword) {
            problems.append("\(path): the schema uses \(keyword), which the contract test does not check")
        }
        if case .null = value, keywords["nullable"] == .bool(true) { return problems }
        if let types = keywords["type"] {
            let allowed: [String] =
                switch types {
                case .string(let one): [one]
                case .array(let list): list.compactMap(\.stringValue)
                default: []
                }
            if !allowed.contains(where: { Self.matches(value, type: $0) }) {
                return problems + [
                    "\(path): \(Self.describe(value)) is not of type \(allowed.joined(separator: " or "))"
                ]
            }
        }
        if case .array(let options)? = keywords["enum"], !options.contains(value) {
            problems.append("\(path): \(Self.describe(value)) is not one of \(options.map(Self.describe))")
        }
        if let constant = keywords["const"], constant != value {
            problems.append("\(path): \(Self.describe(value)) is not \(Self.describe(constant))")
        }
        switch value {
        case .object(let members):
            let properties = keywords["properties"]?.objectValue ?? [:]
            if case .array(let required)? = keywords["required"] {
                for name in required.compactMap(\.stringValue) where members[name] == nil {
                    problems.append("\(path): the required member \(name) is missing")
                }
            }
            for (name, member) in members {
                if let property = properties[name] {
                    problems += check(member, property, "\(path).\(name)")
                } else if let additional = keywords["additionalProperties"] {
                    if additional == .bool(false) {
                        problems.append("\(path): the member \(name) is not in the schema")
                    } else if additional != .bool(true) {
                        problems += check(member, additional, "\(path).\(name)")
                    }
                } else if strictObjects, !partOfAllOf, keywords["oneOf"] == nil, keywords["anyOf"] == nil,
                    !documentedMembers(schema).contains(name)
                {
                    problems.append("\(path): the member \(name) is not documented")
                }
            }
            if case .int(let minimum)? = keywords["minProperties"], members.count < minimum {
                problems.append("\(path): \(members.count) members, fewer than \(minimum)")
            }
            if case .int(let maximum)? = keywords["maxProperties"], members.count > maximum {
                problems.append("\(path): \(members.count) members, more than \(maximum)")
            }
            if let names = keywords["propertyNames"] {
                for name in members.keys.sorted() { problems += check(.string(name), names, "\(path) (name \(name))") }
            }
        case .array(let elements):
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() { problems += check(element, items, "\(path)[\(index)]") }
            }
            if case .int(let minimum)? = keywords["minItems"], elements.count < minimum {
                problems.append("\(path): \(elements.count) items, fewer than \(minimum)")
            }
            if case .int(let maximum)? = keywords["maxItems"], elements.count > maximum {
                problems.append("\(path): \(elements.count) items, more than \(maximum)")
            }
            if keywords["uniqueItems"] == .bool(true), Set(elements.map { $0.encoded() }).count != elements.count {
                problems.append("\(path): the items are not unique")
            }
        case .string(let string):
            let length = string.count
            if case .int(let minimum)? = keywords["minLength"], length < minimum {
                problems.append("\(path): \(length) characters, fewer than \(minimum)")
            }
            if case .int(let maximum)? = keywords["maxLength"], length > maximum {
                problems.append("\(path): \(length) characters, more than \(maximum)")
            }
            if case .string(let pattern)? = keywords["pattern"],
                string.range(of: pattern, options: .regularExpression) == nil
            {
                problems.append("\(path): \(Self.describe(value)) does not match \(pattern)")
            }
            if keywords["format"] == .string("date-time"), RFC3339.parse(string) == nil {
                problems.append("\(path): \(Self.describe(value)) is not an RFC 3339 date-time")
            }
        case .int, .double:
            let number = Self.number(value) ?? .nan
            if let minimum = keywords["minimum"].flatMap(Self.number), number < minimum {
                problems.append("\(path): \(Self.describe(value)) is below the minimum \(minimum)")
            }
            if let maximum = keywords["maximum"].flatMap(Self.number), number > maximum {
                problems.append("\(path): \(Self.describe(value)) is above the maximum \(maximum)")
            }
        default:
            break
        }
        if case .array(let all)? = keywords["allOf"] {
            for part in all { problems += check(value, part, path, partOfAllOf: true) }
        }
        if case .array(let any)? = keywords["anyOf"], !any.contains(where: { check(value, $0, path).isEmpty }) {
            problems.append("\(path): \(Self.describe(value)) matches none of anyOf")
        }
        if let not = keywords["not"], check(value, not, path).isEmpty {
            problems.append("\(path): \(Self.describe(value)) matches what the schema rules out (not)")
        }
        if case .array(let one)? = keywords["oneOf"] {
            let matching = one.filter { check(value, $0, path).isEmpty }.count
            if matching != 1 { problems.append("\(path): \(Self.describe(value)) matches \(matching) of oneOf, not 1") }
        }
        return problems
    }

    // MARK: - Helpers

    /// The members a schema names: its `properties` and those of its `allOf` parts.
    private func documentedMembers(_ schema: JSONValue) -> Set<String> {
        guard let resolved = try? OpenAPIDocument.resolve(schema, in: root), case .object(let keywords) = resolved
        else {
            return []
        }
        var names = Set(keywords["properties"]?.objectValue?.keys ?? [:].keys)
        if case .array(let parts)? = keywords["allOf"] {
            for part in parts { names.formUnion(documentedMembers(part)) }
        }
        return names
    }

    private static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("integer", .int), ("number", .int), ("number", .double),
            ("string", .string), ("array", .array), ("object", .object):
            true
        case ("integer", .double(let number)):
            number.rounded() == number
        default:
            false
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        let text = String(decoding: value.encoded(), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}
