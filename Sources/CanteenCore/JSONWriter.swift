import Foundation

/// Writes JSON text straight to UTF-8 bytes, for the hot paths where `JSONEncoder` costs most:
/// the order response rendered inside the single database writer, and the kitchen feed.
///
/// The output is byte for byte what `JSONEncoder` gives with `.sortedKeys`,
/// `.withoutEscapingSlashes` and `.iso8601` dates: the same escapes (`\b \t \n \f \r`,
/// other controls as `\u00xx`, nothing else), nil optionals left out, dates to the second.
/// Members must be written in sorted key order; a debug build checks it, and the tests compare
/// each writable type with its `Encodable` rendering.
public struct JSONWriter {
    /// The text so far.
    public fileprivate(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `value` as a whole JSON document and returns its bytes.
    public static func encode(_ value: some JSONWritable, capacity: Int = 1024) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        value.write(to: &writer)
        return writer.bytes
    }

    // MARK: - Values

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A fractional number: Swift's shortest round-trip digits without a trailing `.0`, as
    /// `JSONEncoder` writes it; `null` for a value JSON cannot hold (infinity, NaN).
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? Self.trueText : Self.falseText)
    }

    public mutating func null() {
        bytes.append(contentsOf: Self.nullText)
    }

    /// An instant as `JSONEncoder`'s `.iso8601` strategy writes it: UTC, whole seconds.
    public mutating func date(_ value: Date) {
        string(RFC3339.utcSeconds(value))
    }

    /// `{…}`: `members` writes each member through `field`, in sorted key order.
    public mutating func object(_ members: (inout ObjectWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        var object = ObjectWriter(writer: self)
        bytes = []
        members(&object)
        self = object.writer
        bytes.append(UInt8(ascii: "}"))
    }

    /// `[…]` of `elements`.
    public mutating func array<Element: JSONWritable>(_ elements: some Sequence<Element>) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element.write(to: &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: - Escapes

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)
    private static let nullText = Array("null".utf8)
}

/// The members of one JSON object being written.
public struct ObjectWriter {
    fileprivate var writer: JSONWriter
    private var count = 0
    #if DEBUG
    private var lastKey: String?
    #endif

    fileprivate init(writer: JSONWriter) {
        self.writer = writer
    }

    /// `"key":value`; a nil optional writes nothing, as `JSONEncoder` does.
    public mutating func field(_ key: String, _ value: some JSONWritable) {
        guard !value.isAbsent else { return }
        #if DEBUG
        if let lastKey { assert(lastKey < key, "JSON members out of order: \(key) after \(lastKey)") }
        lastKey = key
        #endif
        if count > 0 { writer.bytes.append(UInt8(ascii: ",")) }
        count += 1
        writer.string(key)
        writer.bytes.append(UInt8(ascii: ":"))
        value.write(to: &writer)
    }
}

/// A value that writes itself with a `JSONWriter`.
public protocol JSONWritable {
    func write(to json: inout JSONWriter)
    /// Whether an object member holding this value is left out (a nil optional).
    var isAbsent: Bool { get }
}

extension JSONWritable {
    public var isAbsent: Bool { false }
}

extension String: JSONWritable {
    public func write(to json: inout JSONWriter) { json.string(self) }
}

extension Int: JSONWritable {
    public func write(to json: inout JSONWriter) { json.integer(self) }
}

extension Int64: JSONWritable {
    public func write(to json: inout JSONWriter) { json.integer(self) }
}

extension Bool: JSONWritable {
    public func write(to json: inout JSONWriter) { json.bool(self) }
}

extension Date: JSONWritable {
    public func write(to json: inout JSONWriter) { json.date(self) }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    public func write(to json: inout JSONWriter) {
        if let self { self.write(to: &json) } else { json.null() }
    }

    public var isAbsent: Bool { self == nil }
}

extension Array: JSONWritable where Element: JSONWritable {
    public func write(to json: inout JSONWriter) { json.array(self) }
}

extension Customer: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("name", name)
            object.field("userId", userID)
        }
    }
}
