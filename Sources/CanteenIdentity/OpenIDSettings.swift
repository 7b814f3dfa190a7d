import CanteenCore
import Foundation

/// How Canteen signs people in with the company's OpenID provider (`canteen serve --oidc-…`).
public struct OpenIDSettings: Sendable {
    /// The issuer, exactly as the provider's discovery document and tokens name it.
    public var issuer: String
    public var clientID: String
    public var clientSecret: String
    /// `{public-url}/auth/callback`.
    public var redirectURI: String
    /// The claim that is the user id (`sub` by default): the id preferences, cards and orders use.
    public var userClaim: String
    /// Members of this group (the `groups` claim) act as ops; nil: nobody does.
    public var opsGroup: String?
    /// What the sign-in asks for.
    public var scopes: [String] = ["openid", "profile", "email"]

    /// Checks the combination: an `http://` issuer only on a loopback address, a client id and secret.
    public init(
        issuer: String, clientID: String, clientSecret: String, publicURL: PublicURL, userClaim: String = "sub",
        opsGroup: String? = nil
    ) throws(CanteenError) {
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.query == nil, url.fragment == nil
        else {
            throw Self.invalid(
                "--oidc-issuer", "'\(issuer.prefix(200))' is not an https URL such as https://login.example.com")
        }
        switch scheme {
        case "https": break
        case "http" where PublicURL.isLoopback(host: host): break
        case "http":
            throw Self.invalid(
                "--oidc-issuer",
                "an http:// issuer is accepted only on a loopback address (127.0.0.1, ::1, "
                    + "localhost); '\(host)' is not one: use https")
        default:
            throw Self.invalid("--oidc-issuer", "'\(issuer.prefix(200))' is not an https URL")
        }
        guard !clientID.isEmpty, clientID.count <= 1000 else {
            throw Self.invalid("--oidc-client-id", "the client id is empty or too long")
        }
        guard !clientSecret.isEmpty else {
            throw Self.invalid("--oidc-client-secret-file", "the client secret is empty")
        }
        guard !userClaim.isEmpty else { throw Self.invalid("--oidc-user-claim", "the user claim is empty") }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = publicURL.url(path: "/auth/callback")
        self.userClaim = userClaim
        self.opsGroup = opsGroup.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `{issuer}/.well-known/openid-configuration`.
    public var discoveryURL: String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }

    static func invalid(_ field: String, _ message: String) -> CanteenError {
        CanteenError(.invalid, code: .invalidField, message: message, field: field)
    }
}

/// The address people reach Canteen at (`--public-url`): the origin that cookie-authenticated
/// writes must come from, and the base of the sign-in's redirect URI.
public struct PublicURL: Sendable, Hashable {
    /// `https://canteen.example.com` (no path, no trailing slash).
    public let origin: String
    public let isSecure: Bool

    public init(_ text: String) throws(CanteenError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw OpenIDSettings.invalid(
                "--public-url",
                "'\(text.prefix(200))' is not an origin such as https://canteen.example.com "
                    + "(scheme, host and optional port; no path)")
        }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        origin = "\(scheme)://\(hostPart.lowercased())\(port)"
        isSecure = scheme == "https"
    }

    /// `origin` + `path`.
    public func url(path: String) -> String { origin + path }

    /// Whether `host` is a loopback name or address.
    public static func isLoopback(host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || IPAddress(bare)?.isLoopback == true
    }
}
