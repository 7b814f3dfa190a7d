import Foundation

/// An IPv4 or IPv6 address as its bytes (4 or 16). An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`,
/// what a dual-stack socket reports for an IPv4 peer) is read as the IPv4 address it maps.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Parses `10.20.3.4`, `2001:db8::1` or `::ffff:10.20.3.4` (no zone index, no brackets); nil otherwise.
    public init?(_ text: some StringProtocol) {
        if let v4 = Self.parseIPv4(Substring(text)) {
            bytes = v4
        } else if let v6 = Self.parseIPv6(Substring(text)) {
            let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            bytes = Array(v6.prefix(12)) == mapped ? Array(v6.suffix(4)) : v6
        } else {
            return nil
        }
    }

    /// An address of 4 or 16 bytes.
    init(bytes: [UInt8]) { self.bytes = bytes }

    public var isIPv4: Bool { bytes.count == 4 }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// Whether this is a loopback address (127.0.0.0/8 or ::1).
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                  part.count == 1 || part.first != "0", let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseIPv4(piece) {
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit),
                      let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

/// A block of addresses in CIDR notation (`10.20.0.0/16`, `2001:db8::/32`): a café's building
/// network, or a trusted proxy.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The network's first address (host bits cleared).
    public let address: IPAddress
    public let prefixLength: Int

    /// Parses `ADDRESS/PREFIX`, or an address alone (a network of one). Host bits must be zero
    /// (`10.20.1.0/16` is refused: it is not clear which network was meant).
    public init(_ text: String) throws(CanteenError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw Self.invalid(text, "'\(parts[0].prefix(60))' is not an IPv4 or IPv6 address")
        }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy(\.isNumber), (0...bits).contains(given) else {
                throw Self.invalid(text, "the prefix length after '/' is a whole number from 0 to \(bits)")
            }
            length = given
        }
        let network = IPAddress(bytes: Self.masked(address.bytes, length))
        guard network == address else {
            throw Self.invalid(text, "it has host bits set; the network is \(network)/\(length)")
        }
        self.address = address
        self.prefixLength = length
    }

    /// Whether `candidate` is inside this network (IPv4 never matches an IPv6 network).
    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && Self.masked(candidate.bytes, prefixLength) == address.bytes
    }

    public var description: String { "\(address)/\(prefixLength)" }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = max(0, min(8, length - index * 8))
            return kept == 8 ? byte : byte & ~(0xFF >> UInt8(kept))
        }
    }

    private static func invalid(_ text: String, _ problem: String) -> CanteenError {
        CanteenError(.invalid, code: .invalidNetwork,
                     message: "'\(text.prefix(80))' is not a network such as 10.20.0.0/16: \(problem)")
    }
}
