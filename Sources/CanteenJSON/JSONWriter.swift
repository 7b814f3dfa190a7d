import Foundation

/// Writes JSON text straight to UTF-8 bytes, for the hot paths where `JSONEncoder` costs most:
/// the order response rendered inside the single database writer, and the kitchen feed.
///
/// The output is byte for byte what `JSONEncoder` gives with `.sortedKeys`,
/// `.withoutEscapingSlashes` and `.iso8601` dates: the same escapes (`\b \t \n \f \r`,
/// other controls as `\u00xx`, nothing else), nil optionals left out, dates to the second.
/// Members must be written in sorted key order; a debug build checks it, and the tests compare
/// each writable type with its `Encodable` rendering. The methods are `@inlinable` so that
/// the writers of other modules' types are specialized rather than called generically.
public struct JSONWriter {
    /// The text so far.
    @usableFromInline var storage: [UInt8] = []

    @inlinable
    init(capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// Writes `value` as a whole JSON document and returns its bytes.
    @inlinable
    public static func encode(_ value: some JSONWritable, capacity: Int = 1024) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        value.write(to: &writer)
        return writer.storage
    }

    // MARK: - Values

    @inlinable
    public mutating func string(_ value: String) {
        storage.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte)
                start = index + 1
            }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        storage.append(UInt8(ascii: "\""))
    }

    @inlinable
    public mutating func integer(_ value: some BinaryInteger) {
        storage.append(contentsOf: String(value).utf8)
    }

    /// A fractional number: Swift's shortest round-trip digits without a trailing `.0`, as
    /// `JSONEncoder` writes it; `null` for a value JSON cannot hold (infinity, NaN).
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        storage.append(contentsOf: text.utf8)
    }

    @inlinable
    public mutating func bool(_ value: Bool) {
        storage.append(contentsOf: (value ? "true" : "false").utf8)
    }

    @inlinable
    public mutating func null() {
        storage.append(contentsOf: "null".utf8)
    }

    /// An instant as `JSONEncoder`'s `.iso8601` strategy writes it: UTC, whole seconds.
    @inlinable
    public mutating func date(_ value: Date) {
        string(RFC3339.utcSeconds(value))
    }

    /// `{…}`: `members` writes each member through `field`, in sorted key order.
    @inlinable
    public mutating func object(_ members: (inout ObjectWriter) -> Void) {
        storage.append(UInt8(ascii: "{"))
        var object = ObjectWriter(writer: self)
        storage = []  // the object holds the only reference: no copy on write
        members(&object)
        self = object.writer
        storage.append(UInt8(ascii: "}"))
    }

    /// `[…]` of `elements`.
    @inlinable
    public mutating func array<Element: JSONWritable>(_ elements: some Sequence<Element>) {
        storage.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { storage.append(UInt8(ascii: ",")) }
            first = false
            element.write(to: &self)
        }
        storage.append(UInt8(ascii: "]"))
    }

    /// The order of `JSONEncoder`'s `.sortedKeys`: by UTF-8 bytes (Swift's `<` compares
    /// Unicode-normalized text, which differs for names not in NFC).
    public static func keyOrder(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    // MARK: - Escapes

    @usableFromInline
    mutating func appendEscape(_ byte: UInt8) {
        storage.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): storage.append(byte)
        case 0x08: storage.append(UInt8(ascii: "b"))
        case 0x09: storage.append(UInt8(ascii: "t"))
        case 0x0A: storage.append(UInt8(ascii: "n"))
        case 0x0C: storage.append(UInt8(ascii: "f"))
        case 0x0D: storage.append(UInt8(ascii: "r"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            storage.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                hex[Int(byte >> 4)], hex[Int(byte & 0x0F)],
            ])
        }
    }
}

/// The members of one JSON object being written.
public struct ObjectWriter {
    @usableFromInline var writer: JSONWriter
    @usableFromInline var count = 0
    #if DEBUG
        @usableFromInline var lastKey: String?
    #endif

    @usableFromInline
    init(writer: JSONWriter) {
        self.writer = writer
    }

    /// `"key":value`; a nil optional writes nothing, as `JSONEncoder` does.
    @inlinable
    public mutating func field(_ key: String, _ value: some JSONWritable) {
        guard !value.isAbsent else { return }
        #if DEBUG
            if let lastKey {
                assert(JSONWriter.keyOrder(lastKey, key), "JSON members out of order: \(key) after \(lastKey)")
            }
            lastKey = key
        #endif
        if count > 0 { writer.storage.append(UInt8(ascii: ",")) }
        count += 1
        writer.string(key)
        writer.storage.append(UInt8(ascii: ":"))
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
    @inlinable public var isAbsent: Bool { false }
}

extension String: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.string(self) }
}

extension Int: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.integer(self) }
}

extension Int64: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.integer(self) }
}

extension Bool: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.bool(self) }
}

extension Date: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.date(self) }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) {
        if let self { self.write(to: &json) } else { json.null() }
    }

    @inlinable public var isAbsent: Bool { self == nil }
}

extension Array: JSONWritable where Element: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.array(self) }
}

/// An object of arbitrary names, written in `JSONEncoder`'s `.sortedKeys` order.
extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.object { object in
            for key in keys.sorted(by: JSONWriter.keyOrder) { object.field(key, self[key]!) }
        }
    }
}
