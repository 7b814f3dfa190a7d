import Foundation

// MARK: - Networks of a café's building, trusted proxies

extension IPAddressRange {
    /// A café's building network or a trusted proxy from its CIDR text (`10.20.0.0/16`, or an
    /// address alone), refused with `invalid_network` saying why.
    public static func network(_ text: String) throws(CanteenError) -> IPAddressRange {
        do {
            return try IPAddressRange(text)
        } catch {
            throw CanteenError(
                .invalid, code: .invalidNetwork,
                message: "'\(text.prefix(80))' is not a network such as 10.20.0.0/16: \(error)")
        }
    }
}

extension IPAddressRange: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension IPAddress {
    /// The IPv4 address an IPv4-mapped IPv6 address stands for (`::ffff:10.0.0.1`, what a
    /// dual-stack socket reports for an IPv4 peer); any other address is itself.
    public var unmapped: IPAddress {
        if case .v6(let value) = self, value >> 32 == 0xFFFF { return .v4(UInt32(truncatingIfNeeded: value)) }
        return self
    }

    /// Whether this is a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6).
    public var isLoopback: Bool {
        switch unmapped {
        case .v4(let value): value >> 24 == 127
        case .v6(let value): value == 1
        }
    }
}
