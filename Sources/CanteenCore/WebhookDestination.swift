import Foundation

/// Where a webhook URL sends requests: its scheme, host and port, read strictly so that what is
/// checked is what gets connected to. Refused (`invalid_webhook_url`, field `url`): anything but
/// printable ASCII (control characters, spaces, raw non-ASCII), user info (`user:pass@`, and the
/// `evil.example@10.0.0.1` trick), ports outside 1–65535, percent signs in the host, IPv6 zones,
/// and numeric hosts in any spelling but the standard one (`2130706433`, `0x7f000001`,
/// `0177.0.0.1` and `127.1` are all 127.0.0.1 to a resolver).
public struct WebhookDestination: Hashable, Sendable {
    /// The host, as an address or a DNS name.
    public enum Host: Hashable, Sendable {
        case address(IPAddress)
        case name(String)
    }

    /// `http` or `https`.
    public let scheme: String
    public let host: Host
    /// The port connected to (the scheme's default when the URL names none).
    public let port: Int
    /// The host exactly as an HTTP client reading the URL with Foundation's `URL` sees it (what
    /// AsyncHTTPClient resolves and keys its `dnsOverride` on).
    public let clientHost: String

    /// The longest URL accepted.
    public static let maximumLength = 2048

    public init(url text: String) throws(CanteenError) {
        func invalid(_ message: String) -> CanteenError {
            CanteenError(.invalid, code: .invalidWebhookUrl, message: message, field: "url")
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw invalid("the URL is longer than \(Self.maximumLength) bytes")
        }
        for (offset, scalar) in text.unicodeScalars.enumerated() where !(0x21...0x7E).contains(scalar.value) {
            let code = String(format: "U+%04X", scalar.value)
            switch scalar.value {
            case 0x20:
                throw invalid("the URL has a space at character \(offset + 1); write it as %20")
            case 0..<0x20, 0x7F..<0xA0:
                throw invalid("the URL has a control character (\(code)) at character \(offset + 1)")
            default:
                throw invalid(
                    "the URL has a character outside ASCII (\(code)) at character \(offset + 1); "
                        + "percent-encode it, and write an international host name in its xn-- form")
            }
        }
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw invalid("'\(text.prefix(200))' is not an absolute URL (scheme://host/path)")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw invalid("a webhook URL is http or https, not \(scheme.prefix(20))")
        }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        guard !authority.contains("@") else {
            throw invalid(
                "a webhook URL carries no user name or password (nothing before an @ in its host); "
                    + "receivers check the Canteen-Signature header instead")
        }
        // The host, and what follows it (nothing, or :port).
        let hostText: Substring
        let afterHost: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw invalid("the URL's [IPv6 address] is not closed")
            }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            afterHost = authority[authority.index(after: close)...]
            guard !hostText.contains("%") else {
                throw invalid("an IPv6 zone (%…) names a link of this machine; webhooks go to global addresses")
            }
            guard let address = IPAddress.parseIPv6(hostText).map(IPAddress.v6) else {
                throw invalid("'[\(hostText.prefix(60))]' is not an IPv6 address")
            }
            host = .address(address)
        } else {
            hostText = authority.prefix { $0 != ":" }
            afterHost = authority[hostText.endIndex...]
            host = try Self.host(hostText, invalid: invalid)
        }
        var port = scheme == "https" ? 443 : 80
        if afterHost.hasPrefix(":") && afterHost.count > 1 {
            let digits = afterHost.dropFirst()
            guard digits.utf8.count <= 5, digits.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(digits),
                (1...65535).contains(number)
            else {
                throw invalid("the port '\(digits.prefix(20))' is not a number from 1 to 65535")
            }
            port = number
        } else if !afterHost.isEmpty && afterHost != ":" {
            throw invalid("'\(authority.prefix(200))' is not a host with an optional :port")
        }
        // What an HTTP client reading the URL with Foundation sees must be what was checked.
        guard let url = URL(string: text), let seen = url.host, url.port ?? port == port,
            Self.sameHost(seen, host)
        else {
            throw invalid("the URL's host cannot be read unambiguously")
        }
        self.scheme = scheme
        self.port = port
        self.clientHost = seen.hasPrefix("[") && seen.hasSuffix("]") ? String(seen.dropFirst().dropLast()) : seen
    }

    /// A host that is not a bracketed IPv6 address: a standard IPv4 address, or a DNS name.
    private static func host(_ text: Substring, invalid: (String) -> CanteenError) throws(CanteenError) -> Host {
        guard !text.isEmpty else { throw invalid("the URL has no host") }
        guard !text.contains("%") else { throw invalid("the URL's host has a percent sign; write the host as it is") }
        if let address = IPAddress.parseIPv4(text) { return .address(.v4(address)) }
        if IPAddress.looksNumeric(text) {
            let reading =
                IPAddress.legacyIPv4(text.hasSuffix(".") ? text.dropLast() : text)
                .map { " (resolvers read it as \(IPAddress.v4($0)))" } ?? ""
            throw invalid(
                "'\(text.prefix(60))' is a numeric host in a non-standard spelling\(reading); "
                    + "write an IPv4 address as four decimal numbers, a.b.c.d")
        }
        let name = text.hasSuffix(".") ? text.dropLast() : text
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 253, labels.allSatisfy({ (1...63).contains($0.utf8.count) }),
            name.utf8.allSatisfy({ byte in
                (97...122).contains(byte | 0x20) || (48...57).contains(byte) || byte == 45 || byte == 95 || byte == 46
            })
        else {
            throw invalid(
                "'\(text.prefix(60))' is not a host name (labels of letters, digits and hyphens, "
                    + "separated by dots) nor an IP address")
        }
        return .name(String(text))
    }

    /// Whether the host Foundation read is the one checked.
    private static func sameHost(_ seen: String, _ host: Host) -> Bool {
        let bare = seen.hasPrefix("[") && seen.hasSuffix("]") ? String(seen.dropFirst().dropLast()) : seen
        switch host {
        case .address(let address): return IPAddress(bare) == address
        case .name(let name): return bare.lowercased() == name.lowercased()
        }
    }
}
