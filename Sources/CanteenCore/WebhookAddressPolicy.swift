/// Where webhooks may be sent: public addresses only, unless ops allow internal ranges
/// explicitly (`canteen serve --webhook-allow-private CIDR`). A receiver's URL is judged when it
/// is registered and again before every attempt, on every address its host resolves to, so that
/// an ops token cannot turn the delivery service into a way into the machine's own network
/// (loopback services, the cloud metadata service at 169.254.169.254, private hosts).
public struct WebhookAddressPolicy: Hashable, Sendable {
    /// Internal ranges webhooks may go to all the same.
    public var allowed: [IPAddressRange]

    public init(allowing allowed: [IPAddressRange] = []) {
        self.allowed = allowed
    }

    /// Why webhooks may not go to `address` ("private", "loopback", …), nil when they may.
    public func refusal(of address: IPAddress) -> String? {
        guard let kind = Self.internalKind(of: address) else { return nil }
        let embedded = address.embeddedIPv4.map(IPAddress.v4)
        if allowed.contains(where: { $0.contains(address) || embedded.map($0.contains) == true }) { return nil }
        return kind
    }

    /// What kind of internal (or not globally reachable) address `address` is, nil for a public
    /// one: the IANA special-purpose registries, multicast and broadcast, and for IPv6 anything
    /// outside global unicast (2000::/3). IPv6 forms that carry an IPv4 address are judged by it.
    public static func internalKind(of address: IPAddress) -> String? {
        if let embedded = address.embeddedIPv4 {
            if let kind = internalKind(of: .v4(embedded)) { return kind }
            // IPv4-mapped and NAT64 addresses of a public IPv4 address reach that address.
            if case .v6(let value) = address, [0xFFFF, 0x64_FF9B_0000_0000_0000_0000].contains(value >> 32) {
                return nil
            }
        }
        if let (_, kind) = specialRanges.first(where: { $0.range.contains(address) }) { return kind }
        if case .v6(let value) = address, value >> 125 != 1 { return "reserved (not IPv6 global unicast)" }
        return nil
    }

    /// The special-purpose blocks, the more specific first.
    static let specialRanges: [(range: IPAddressRange, kind: String)] = [
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local (where cloud metadata services answer)"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "reserved (6to4 relay anycast)"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "reserved (IPv4-compatible)"),
        ("::ffff:0:0:0/96", "reserved (IPv4-translated)"),
        ("64:ff9b:1::/48", "private (local-use NAT64)"),
        ("100::/64", "reserved (discard-only)"),
        ("2001:db8::/32", "documentation"),
        ("2001::/23", "reserved (IETF protocol assignments)"),
        ("2002::/16", "reserved (6to4)"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "reserved (SRv6)"),
        ("fc00::/7", "private (unique local)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "private (site-local)"),
        ("ff00::/8", "multicast"),
    ].map { (try! IPAddressRange($0.0), $0.1) }
}
