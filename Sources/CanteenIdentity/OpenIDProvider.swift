import CanteenCore
import CanteenJSON
import Crypto
import Foundation
import Logging

/// The company's OpenID provider as Canteen uses it (a confidential client): discovery, the
/// authorization code flow with PKCE (S256), `state` and `nonce`, the code exchanged at the token
/// endpoint with the client's secret (HTTP Basic), and tokens verified against the provider's
/// JWKS, which is fetched again when a token names a key it does not hold.
public final class OpenIDProvider: Sendable {
    public let settings: OpenIDSettings
    let transport: any ProviderTransport
    let clock: @Sendable () -> Date
    let logger: Logger
    private let discovery: Discovery
    let keys: ProviderKeys

    public init(
        settings: OpenIDSettings, transport: any ProviderTransport = HTTPProviderTransport(),
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "canteen.oidc")
    ) {
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.logger = logger
        let discovery = Discovery(settings: settings, transport: transport, clock: clock)
        self.discovery = discovery
        keys = ProviderKeys(clock: clock, logger: logger) {
            let url = try await discovery.metadata().jwksURI
            return try await Self.json(transport.get(url), from: "the JWKS at \(url)")
        }
    }

    /// The provider's discovery document (fetched once; again after a failure, at most every 10 s).
    public func metadata() async throws -> ProviderMetadata { try await discovery.metadata() }

    /// How many times the JWKS has been fetched.
    public var keySetFetches: Int { get async { await keys.fetchCount } }

    // MARK: - The code flow

    /// A new sign-in's secrets: `state`, `nonce` and the PKCE verifier, each 256 random bits.
    public static func newSecrets() -> (state: String, nonce: String, codeVerifier: String) {
        let random = RandomID()
        return (random.base64URL(bytes: 32), random.base64URL(bytes: 32), random.base64URL(bytes: 32))
    }

    /// The S256 challenge of a PKCE verifier (RFC 7636 §4.2).
    public static func codeChallenge(_ verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
    }

    /// Where to send the browser to sign in.
    public func authorizationURL(state: String, nonce: String, codeVerifier: String) async throws -> String {
        let endpoint = try await metadata().authorizationEndpoint
        let query = FormEncoding.encode([
            ("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", settings.redirectURI),
            ("scope", settings.scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", Self.codeChallenge(codeVerifier)), ("code_challenge_method", "S256"),
        ])
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// The tokens the provider's token endpoint gives for an authorization code.
    public struct TokenAnswer: Sendable {
        public let idToken: String
        public let accessToken: String?
    }

    /// Exchanges `code` (with the PKCE verifier) at the token endpoint, authenticating as the client.
    /// `token_exchange_failed` when the provider refuses (its `error` named), `provider_unavailable`
    /// when it cannot be reached.
    public func exchange(code: String, codeVerifier: String) async throws -> TokenAnswer {
        let endpoint = try await metadata().tokenEndpoint
        let credentials = "\(FormEncoding.escape(settings.clientID)):\(FormEncoding.escape(settings.clientSecret))"
        let (status, body) = try await transport.postForm(
            endpoint,
            fields: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", settings.redirectURI),
                ("code_verifier", codeVerifier),
            ],
            headers: [("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())])
        let answer = (try? JSONValue.parse(body))?.objectValue ?? [:]
        guard status == 200 else {
            let error = answer["error"]?.stringValue ?? "HTTP \(status)"
            let description = answer["error_description"]?.stringValue.map { ": \($0.prefix(200))" } ?? ""
            throw CanteenError(
                .unauthenticated, code: .tokenExchangeFailed,
                message: "the identity provider refused the sign-in's code (\(error.prefix(60))\(description))",
                parameters: ["error": String(error.prefix(60))])
        }
        guard let idToken = answer["id_token"]?.stringValue else {
            throw CanteenError(
                .unauthenticated, code: .tokenExchangeFailed,
                message: "the identity provider's token answer holds no id_token")
        }
        return TokenAnswer(idToken: idToken, accessToken: answer["access_token"]?.stringValue)
    }

    // MARK: - Tokens

    /// The claims of an ID token for this client and this sign-in's `nonce`, once every check passed.
    public func verifyIDToken(_ token: String, nonce: String) async throws -> VerifiedClaims {
        try await verifier().verify(token, nonce: nonce)
    }

    /// The claims of a JWT access token (a native app's `Authorization: Bearer`), checked the same
    /// way with `aud` = the client id; a `typ` other than `at+jwt` or `JWT` is refused.
    public func verifyAccessToken(_ token: String) async throws -> VerifiedClaims {
        let type = try CompactJWS(token).type?.lowercased()
        guard type == nil || ["at+jwt", "application/at+jwt", "jwt"].contains(type!) else {
            throw TokenCheck.form.failure("typ '\(type!.prefix(40))' is not an access token's")
        }
        return try await verifier().verify(token, nonce: nil)
    }

    /// Who the claims say the person is: the user id from `settings.userClaim`, ops when in
    /// `settings.opsGroup`.
    public func person(_ claims: VerifiedClaims) throws(CanteenError) -> SignedInPerson {
        guard let userID = claims.string(settings.userClaim) else {
            throw TokenCheck.subject.failure("the token has no '\(settings.userClaim)' claim to name the user")
        }
        guard UserID.isValid(userID) else {
            throw TokenCheck.subject.failure(
                "'\(settings.userClaim)' is '\(userID.prefix(80))', which is not a user id "
                    + "(1–128 of letters, digits, '-', '_', '.' and '@')")
        }
        let isOps = settings.opsGroup.map { claims.groups.contains($0) } ?? false
        return SignedInPerson(
            userID: userID, role: isOps ? .ops : .user, name: claims.name.map { String($0.prefix(200)) },
            email: claims.email.map { String($0.prefix(320)) })
    }

    private func verifier() async throws -> TokenVerifier {
        TokenVerifier(issuer: try await metadata().issuer, clientID: settings.clientID, keys: keys, clock: clock)
    }

    static func json(_ answer: (status: Int, body: Data), from what: String) throws -> JSONValue {
        guard answer.status == 200, let value = try? JSONValue.parse(answer.body) else {
            throw CanteenError(
                .unavailable, code: .providerUnavailable,
                message: "the identity provider's answer for \(what.prefix(200)) is not usable "
                    + "(HTTP \(answer.status))")
        }
        return value
    }
}

/// Who signed in, as the provider's claims say.
public struct SignedInPerson: Hashable, Sendable {
    public var userID: String
    public var role: Role
    public var name: String?
    public var email: String?

    public init(userID: String, role: Role, name: String?, email: String?) {
        self.userID = userID
        self.role = role
        self.name = name
        self.email = email
    }
}

/// The discovery document, fetched once and kept; after a failure, asked again at most every 10 s.
actor Discovery {
    let settings: OpenIDSettings
    let transport: any ProviderTransport
    let clock: @Sendable () -> Date
    private var known: ProviderMetadata?
    private var failure: (error: any Error, at: Date)?

    init(settings: OpenIDSettings, transport: any ProviderTransport, clock: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.transport = transport
        self.clock = clock
    }

    func metadata() async throws -> ProviderMetadata {
        if let known { return known }
        if let failure, clock().timeIntervalSince(failure.at) < ProviderKeys.refetchInterval { throw failure.error }
        do {
            let url = settings.discoveryURL
            let document = try OpenIDProvider.json(try await transport.get(url), from: url)
            let metadata = try ProviderMetadata(document, expectedIssuer: settings.issuer)
            known = metadata
            return metadata
        } catch {
            failure = (error, clock())
            throw error
        }
    }
}
