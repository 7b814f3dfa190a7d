/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a lone address is a
/// block of one (`/32` or `/128`).
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (its host bits are zero).
    public let network: IPAddress
    public let prefixLength: Int

    /// Why a text is not a range, in words for the person who typed it.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `address/length` or a lone address; the address's bits after the prefix must be
    /// zero (`10.0.0.0/8`, not `10.1.2.3/8`), so that a typo never allows more than was meant.
    public init(_ text: String) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw ParseError(
                description: "'\(text.prefix(60))' does not start with an IPv4 or IPv6 address "
                    + "(CIDR such as 10.0.0.0/8 or fd00::/8)")
        }
        let bits = address.bitWidth
        var length = bits
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(parts[1]),
                (0...bits).contains(value)
            else {
                throw ParseError(description: "'\(text.prefix(60))': the prefix length is a number from 0 to \(bits)")
            }
            length = value
        }
        let range = IPAddressRange(address, prefixLength: length)
        guard range.network == address else {
            throw ParseError(
                description: "'\(text.prefix(60))' has bits set after its prefix; "
                    + "did you mean \(range)?")
        }
        self = range
    }

    /// The block of `prefixLength` bits around `address` (the host bits are cleared).
    public init(_ address: IPAddress, prefixLength: Int) {
        let length = min(max(prefixLength, 0), address.bitWidth)
        self.prefixLength = length
        switch address {
        case .v4(let value):
            network = .v4(length == 0 ? 0 : value & ~UInt32(0) << (32 - length))
        case .v6(let value):
            network = .v6(length == 0 ? 0 : value & ~UInt128(0) << (128 - length))
        }
    }

    /// Whether `address` lies in the block (an address of the other family never does).
    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4, .v4), (.v6, .v6): IPAddressRange(address, prefixLength: prefixLength).network == network
        default: false
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }
}

extension IPAddress {
    /// 32 or 128.
    public var bitWidth: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }
}
