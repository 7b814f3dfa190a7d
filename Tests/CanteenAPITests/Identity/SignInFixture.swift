import CanteenAPI
import CanteenCore
import CanteenIdentity
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A Canteen in process (the test café, the test clock) whose people sign in with the test
/// identity provider, and the steps of a sign-in as a browser takes them.
struct SignInFixture: Sendable {
    let environment: TestEnvironment
    let provider: TestIdentityProvider
    let services: APIServices
    let publicURL: String

    static let defaultPublicURL = "https://canteen.test"

    /// Runs `body` with a fresh fixture and stops the provider afterwards, whatever happens.
    static func with<T: Sendable>(
        publicURL: String = defaultPublicURL, opsGroup: String? = "canteen-ops",
        clientSecret: String = TestIdentityProvider.clientSecret,
        _ body: (SignInFixture) async throws -> T
    ) async throws -> T {
        let environment = try await TestEnvironment.make()
        let provider = try TestIdentityProvider(redirectURIs: [publicURL + "/auth/callback"])
        defer { provider.stop() }
        var services = environment.services
        services.identity = try await identity(
            environment, provider, publicURL: publicURL, opsGroup: opsGroup,
            clientSecret: clientSecret)
        return try await body(
            SignInFixture(
                environment: environment, provider: provider, services: services,
                publicURL: publicURL))
    }

    /// Signing in with `provider` on the environment's clock (the provider's clock is set to it).
    static func identity(
        _ environment: TestEnvironment, _ provider: TestIdentityProvider,
        publicURL: String = defaultPublicURL, opsGroup: String? = "canteen-ops",
        clientSecret: String = TestIdentityProvider.clientSecret
    ) async throws
        -> IdentitySettings
    {
        try await provider.setClock(environment.clock.now)
        let settings = try OpenIDSettings(
            issuer: provider.issuer, clientID: TestIdentityProvider.clientID,
            clientSecret: clientSecret,
            publicURL: try PublicURL(publicURL), opsGroup: opsGroup)
        return IdentitySettings(
            publicURL: try PublicURL(publicURL),
            provider: OpenIDProvider(settings: settings, clock: environment.clock.closure))
    }

    /// Runs `body` against this fixture's in-process router.
    func withRouter<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = Application(router: CanteenRouter.build(services).router)
        return try await app.test(.router) { client in try await body(client) }
    }

    /// The session cookie's name (`__Host-` prefixed on https).
    var sessionCookieName: String { publicURL.hasPrefix("https:") ? "__Host-canteen_session" : "canteen_session" }

    // MARK: - Steps

    /// `GET /auth/login`: the provider's authorization URL and the sign-in cookie (`name=value`).
    func startLogin(_ client: any TestClientProtocol, next: String = "/app") async throws
        -> (authorization: String, cookie: String, setCookie: String)
    {
        let response = try await client.execute(uri: "/auth/login?next=\(next)", method: .get, headers: [:], body: nil)
        try #require(response.status == .found, "GET /auth/login: \(response.status) \(String(buffer: response.body))")
        let location = try #require(response.headers[.location])
        let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("canteen_login=") })
        return (location, String(setCookie.prefix { $0 != ";" }), setCookie)
    }

    /// The callback's path and query from the provider's redirect (`https://canteen.test/auth/callback?…`).
    func callbackPath(_ redirect: String) throws -> String {
        try #require(redirect.hasPrefix(publicURL + "/auth/callback?"), "redirected to \(redirect)")
        return String(redirect.dropFirst(publicURL.count))
    }

    /// `GET /auth/callback?…` with the sign-in cookie.
    func callback(_ client: any TestClientProtocol, _ path: String, cookie: String?) async throws -> TestResponse {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: path, method: .get, headers: headers, body: nil)
    }

    /// A whole sign-in of `user` (after `prepare`, e.g. a spoiled next ID token): the callback's answer.
    func signIn(
        _ client: any TestClientProtocol, user: String = "alice",
        prepare: () async throws -> Void = {}
    ) async throws -> TestResponse {
        let (authorization, cookie, _) = try await startLogin(client)
        try await prepare()
        let redirect = try await provider.signIn(at: authorization, user: user)
        return try await callback(client, try callbackPath(redirect), cookie: cookie)
    }

    /// A whole sign-in that succeeds: the session cookie (`name=value`).
    func session(_ client: any TestClientProtocol, user: String = "alice") async throws -> String {
        let response = try await signIn(client, user: user)
        try #require(response.status == .seeOther, "callback: \(response.status) \(String(buffer: response.body))")
        let setCookie = try #require(
            response.headers[values: .setCookie].first { $0.hasPrefix(sessionCookieName + "=") })
        return String(setCookie.prefix { $0 != ";" })
    }

    /// A request with the session cookie, and `Origin` when given.
    func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, cookie: String,
        origin: String? = nil, json: JSONValue? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        headers[.cookie] = cookie
        if let origin { headers[.origin] = origin }
        return try await client.send(method, uri, json: json, headers: headers)
    }
}
