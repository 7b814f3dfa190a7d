import CanteenCore
import CanteenIdentity

/// How people and clients are recognised beyond bearer tokens: the public address, the OpenID
/// provider people sign in with (nil: tokens only, as before), the proxies whose
/// `X-Forwarded-For` is believed, and whether request logs keep client addresses.
public struct IdentitySettings: Sendable {
    /// `--public-url`: the origin cookie-authenticated writes must come from.
    public var publicURL: PublicURL?
    /// The company's OpenID provider; nil when sign-in is not configured.
    public var provider: OpenIDProvider?
    /// `--trusted-proxy`.
    public var clientAddresses: ClientAddressResolver
    /// `--log-client-address`: request log lines carry the client's address (off by default).
    public var logClientAddress: Bool

    public init(
        publicURL: PublicURL? = nil, provider: OpenIDProvider? = nil, trustedProxies: [IPAddressRange] = [],
        logClientAddress: Bool = false
    ) {
        self.publicURL = publicURL
        self.provider = provider
        self.clientAddresses = ClientAddressResolver(trustedProxies: trustedProxies)
        self.logClientAddress = logClientAddress
    }

    /// Tokens only: no sign-in, no proxies, no addresses in logs.
    public static let tokensOnly = IdentitySettings()

    /// The session cookie's name: `__Host-` prefixed on https (the browser then insists on
    /// `Secure`, `Path=/` and no `Domain`).
    var sessionCookie: String { publicURL?.isSecure == true ? "__Host-canteen_session" : "canteen_session" }
    /// The cookie that binds a sign-in under way to the browser that started it.
    static let loginCookie = "canteen_login"
}
