/// An IPv4 or IPv6 address, read only from its standard text: four decimal numbers for IPv4
/// (`192.0.2.1`, no leading zeros), RFC 4291 groups for IPv6 (`2001:db8::1`, `::ffff:192.0.2.1`),
/// which is what `inet_pton` accepts. Other spellings that resolvers take (`2130706433`,
/// `0x7f.1`, `0177.0.0.1`) are not addresses here; see `legacyIPv4`.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt128)

    /// Parses the standard text of an address (IPv6 without brackets or zone).
    public init?(_ text: some StringProtocol) {
        if let value = Self.parseIPv4(Substring(text)) {
            self = .v4(value)
        } else if let value = Self.parseIPv6(Substring(text)) {
            self = .v6(value)
        } else {
            return nil
        }
    }

    /// The address from its bytes in network order (4 or 16 of them).
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16: self = .v6(bytes.reduce(0) { $0 << 8 | UInt128($1) })
        default: return nil
        }
    }

    /// The IPv4 address an IPv6 address carries in its last 32 bits, for the forms that carry one
    /// and reach it: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated),
    /// IPv4-translated (`::ffff:0:a.b.c.d`) and the NAT64 well-known prefix (`64:ff9b::a.b.c.d`).
    public var embeddedIPv4: UInt32? {
        guard case .v6(let value) = self else { return nil }
        let prefix = value >> 32
        let low = UInt32(truncatingIfNeeded: value)
        switch prefix {
        case 0xFFFF, 0xFFFF_0000, 0x64_FF9B_0000_0000_0000_0000: return low
        case 0: return low > 1 ? low : nil  // `::` and `::1` are themselves
        default: return nil
        }
    }

    /// Standard text: dotted decimal, or RFC 5952 (lower case, the longest run of zero groups
    /// shortened to `::`, IPv4-mapped addresses as `::ffff:a.b.c.d`).
    public var description: String {
        switch self {
        case .v4(let value):
            return Self.dotted(value)
        case .v6(let value):
            if value >> 32 == 0xFFFF { return "::ffff:" + Self.dotted(UInt32(truncatingIfNeeded: value)) }
            let groups = (0..<8).map { UInt16(truncatingIfNeeded: value >> (112 - 16 * $0)) }
            var best = (start: -1, length: 0)
            var index = 0
            while index < 8 {
                guard groups[index] == 0 else {
                    index += 1
                    continue
                }
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > best.length { best = (index, end - index) }
                index = end
            }
            func hex(_ range: Range<Int>) -> String {
                groups[range].map { String($0, radix: 16) }.joined(separator: ":")
            }
            guard best.length >= 2 else { return hex(0..<8) }
            return hex(0..<best.start) + "::" + hex((best.start + best.length)..<8)
        }
    }

    // MARK: - Parsing

    private static func dotted(_ value: UInt32) -> String {
        [24, 16, 8, 0].map { String(value >> $0 & 0xFF) }.joined(separator: ".")
    }

    /// Four decimal numbers 0–255 without leading zeros, as `inet_pton` reads them.
    static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (48...57).contains($0) }),
                part.utf8.first != 48 || part.utf8.count == 1, let number = UInt32(part), number <= 255
            else { return nil }
            value = value << 8 | number
        }
        return value
    }

    /// RFC 4291 text: eight groups of one to four hex digits, one `::` for a run of zero groups,
    /// the last 32 bits optionally in dotted decimal.
    static func parseIPv6(_ text: Substring) -> UInt128? {
        guard text.utf8.count >= 2, text.utf8.count <= 45 else { return nil }
        func groups(_ part: Substring, ipv4Allowed: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            var groups: [UInt16] = []
            for (index, piece) in pieces.enumerated() {
                if ipv4Allowed && index == pieces.count - 1 && piece.contains(".") {
                    guard let ipv4 = parseIPv4(piece) else { return nil }
                    groups += [UInt16(ipv4 >> 16), UInt16(ipv4 & 0xFFFF)]
                    continue
                }
                guard (1...4).contains(piece.utf8.count), piece.utf8.allSatisfy(isHexDigit),
                    let group = UInt16(piece, radix: 16)
                else { return nil }
                groups.append(group)
            }
            return groups
        }
        var all: [UInt16]
        if let gap = text.firstRange(of: "::") {
            let after = text[gap.upperBound...]
            guard !after.contains("::"), let head = groups(text[..<gap.lowerBound], ipv4Allowed: false),
                let tail = groups(after, ipv4Allowed: true), head.count + tail.count <= 7
            else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let groups = groups(text, ipv4Allowed: true), groups.count == 8 else { return nil }
            all = groups
        }
        return all.reduce(0) { $0 << 16 | UInt128($1) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    // MARK: - Legacy IPv4 spellings

    /// What `inet_aton` (and so `getaddrinfo`) makes of `text`: one to four numbers, each
    /// decimal, octal (leading `0`) or hex (`0x`), the last one filling the bytes left
    /// (`127.1` is 127.0.0.1, `2130706433` too); nil when it reads no address.
    public static func legacyIPv4(_ text: some StringProtocol) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            var digits = Substring(part)
            var radix = 10
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                radix = 16
                digits = digits.dropFirst(2)
                if digits.isEmpty {
                    numbers.append(0)
                    continue
                }
            } else if digits.hasPrefix("0") && digits.count > 1 {
                radix = 8
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.utf8.count <= 32, digits.utf8.allSatisfy(isHexDigit),
                let number = UInt64(digits, radix: radix), number <= UInt32.max
            else { return nil }
            numbers.append(number)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 255 }), last < UInt64(1) << (8 * (4 - numbers.count)) else { return nil }
        let leading = numbers.enumerated().reduce(UInt64(0)) { $0 | $1.element << (24 - 8 * $1.offset) }
        return UInt32(leading | last)
    }

    /// Whether `text` is an IPv4 address in a spelling other than the standard one that some
    /// resolver would still read as an address: its last label is a number (decimal, or hex
    /// with `0x`), as the WHATWG URL standard decides. `1.2.3.4.` and `1.2.3.4.5` count too.
    public static func looksNumeric(_ text: some StringProtocol) -> Bool {
        var labels = text.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ (48...57).contains($0) }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).utf8.allSatisfy(isHexDigit)
    }
}
