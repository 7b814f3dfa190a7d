/// Reads RFC 8259 JSON text into a `JSONValue` in one pass over its UTF-8 bytes.
///
/// Every request body goes through this, so it is written for the job rather than through
/// `JSONDecoder` and `Decodable` (a large share of the server's time per order when measured;
/// docs/benchmarks.md has the figure). It is
/// strict: UTF-8 only, no comments, no trailing commas, no leading zeros, no lone surrogates,
/// no duplicate member names (names equal after Unicode normalization are the same name, as
/// for Swift's `String`), and at most `maxDepth` nested arrays and objects, so a hostile body
/// gets an error, never a stack overflow. Errors name the line and column. A whole number
/// written with a fraction or exponent (`2.0`, `1e2`) reads as an integer, as `JSONDecoder`
/// read it.
public struct JSONParser {
    /// How deep arrays and objects may nest.
    public static let maxDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The single JSON value of `bytes`, white space around it allowed.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        // A UTF-8 byte-order mark (editors on Windows write one) is ignored, as RFC 8259 allows.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    // MARK: - Values

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek() else { throw failure("the text ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(Self.describe(byte)) where a value was expected")
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return leaveContainer(.object(members)) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let keyStart = index
            let key = try string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after the member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            let member = try value()
            guard members.updateValue(member, forKey: key) == nil else {
                index = keyStart
                throw failure("the member name \"\(key)\" appears twice")
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): return leaveContainer(.object(members))
            case nil: throw failure("the text ends inside an object")
            default: throw failure("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { return leaveContainer(.array(elements)) }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): return leaveContainer(.array(elements))
            case nil: throw failure("the text ends inside an array")
            default: throw failure("expected ',' or ']' after an array element")
            }
        }
    }

    /// Past the closing bracket of the container whose value is `value`.
    private mutating func leaveContainer(_ value: JSONValue) -> JSONValue {
        index += 1
        depth -= 1
        return value
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else {
            var error = failure("arrays and objects nest more than \(Self.maxDepth) deep")
            error.tooDeep = true
            throw error
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] })
        else { throw failure("unexpected \(Self.describe(bytes[index])) where a value was expected") }
        index += count
    }

    // MARK: - Numbers

    /// An integer that fits `Int64` stays an integer; any other number is a `Double`.
    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw failure("a number needs a digit after '-'") }
        if first == UInt8(ascii: "0"), let next = peek(at: index + 1), Self.isDigit(next) {
            throw failure("a number may not have a leading zero")
        }
        skipDigits()
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw failure("a number needs a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else {
                throw failure("a number needs a digit in its exponent")
            }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            index = start
            throw failure("the number \(text) is too large")
        }
        // `2.0` and `1e2` are whole numbers, as JSONDecoder read them before this parser.
        if let integer = Int64(exactly: double) { return .int(integer) }
        return .double(double)
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: - Strings

    /// A string literal starting at the opening quote; escapes decoded, UTF-8 checked.
    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the bytes between the quotes are the string.
        while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { index += 1 }
        if peek() == UInt8(ascii: "\"") {
            let text = try decodeUTF8(start..<index)
            index += 1
            return text
        }
        var utf8 = Array(bytes[start..<index])
        while true {
            guard let byte = peek() else {
                index = start - 1
                throw failure("a string is not closed")
            }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    index = start
                    throw failure("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &utf8)
            case 0..<0x20:
                throw failure("a control character (\(Self.describe(byte))) must be escaped inside a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private func decodeUTF8(_ range: Range<Int>) throws(JSONSyntaxError) -> String {
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            var failing = self
            failing.index = range.lowerBound
            throw failing.failure("a string is not valid UTF-8")
        }
        return text
    }

    /// The escape after a backslash, appended to `utf8` as UTF-8.
    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek() else { throw failure("the text ends inside an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard peek() == UInt8(ascii: "\\"), peek(at: index + 1) == UInt8(ascii: "u") else {
                    throw failure("a \\u escape of a high surrogate must be followed by its low surrogate")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("a \\u escape of a high surrogate must be followed by its low surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a \\u escape of a low surrogate has no high surrogate before it")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a \\u escape is not a character") }
            utf8.append(contentsOf: UTF8.encode(unicode)!)
        default:
            index -= 1
            throw failure("\\\(Self.describe(byte)) is not a JSON escape")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw failure("the text ends inside a \\u escape") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    // MARK: - Bytes

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func peek(at position: Int) -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            index += 1
        }
    }

    /// An error at the current position, with its line and column (1-based, in bytes).
    private func failure(_ message: String) -> JSONSyntaxError {
        let end = min(index, bytes.count)
        var line = 1
        var lineStart = 0
        for position in 0..<end where bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(message: message, line: line, column: end - lineStart + 1)
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21..<0x7F: "'\(Character(Unicode.Scalar(byte)))'"
        default: "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }
}

/// Where and why a text is not JSON.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int
    /// The text may be valid JSON, but nests deeper than the parser reads.
    public internal(set) var tooDeep = false

    init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "\(message) (line \(line), column \(column))" }
}
