// MARK: - ByteCursor

/// A bounds-checked cursor over bytes: every read throws an error naming the offset and the field.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var offset: Int
    /// Added to offsets in errors, when `bytes` is a part of a larger buffer.
    let base: Int

    init(_ bytes: [UInt8], base: Int = 0) {
        self.bytes = bytes
        self.offset = 0
        self.base = base
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }
    /// The absolute offset of the next byte.
    var position: Int { base + offset }

    mutating func u8(_ what: String) throws(NFCDecodingError) -> UInt8 {
        guard offset < bytes.count else {
            throw .truncated(what, at: position, needed: 1, available: 0)
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16BE(_ what: String) throws(NFCDecodingError) -> UInt16 {
        let pair = try take(2, what)
        return UInt16(pair[0]) << 8 | UInt16(pair[1])
    }

    mutating func u16LE(_ what: String) throws(NFCDecodingError) -> UInt16 {
        let pair = try take(2, what)
        return UInt16(pair[1]) << 8 | UInt16(pair[0])
    }

    mutating func u32BE(_ what: String) throws(NFCDecodingError) -> UInt32 {
        let four = try take(4, what)
        return four.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func take(_ count: Int, _ what: String) throws(NFCDecodingError) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw .truncated(what, at: position, needed: count, available: remaining)
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    func expectEnd(_ what: String) throws(NFCDecodingError) {
        guard isAtEnd else {
            throw .invalid("\(remaining) unexpected byte\(remaining == 1 ? "" : "s") after \(what)", at: position)
        }
    }
}

// MARK: - Hex

extension Sequence where Element == UInt8 {
    /// Upper-case hex, no separators: `04A1B2`.
    public var hexString: String {
        map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}

/// Parses hex text (spaces and colons allowed) into bytes; nil when it is not hex.
public func bytes(fromHex text: String) -> [UInt8]? {
    let digits = text.filter { !$0.isWhitespace && $0 != ":" }
    guard digits.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
        result.append(byte)
        index = next
    }
    return result
}
