import CanteenCore
import CanteenIdentity
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Signing people in with the company's OpenID provider:
///
/// - `GET /auth/login?next=/app` starts the authorization code flow (PKCE S256, `state`, `nonce`),
///   bound to this browser by a short-lived cookie whose secret names the sign-in's row;
/// - `GET /auth/callback` (the redirect URI) takes that row (once), checks `state`, exchanges the
///   code, verifies the ID token and opens a session behind an `HttpOnly` cookie;
/// - `POST /auth/logout` ends the session.
///
/// Without `--oidc-issuer` the first two answer 404 `sign_in_unavailable`.
struct AuthRoutes {
    let services: APIServices

    /// The session cookie's lifetime in the browser; the server ends the session after 12 hours idle.
    static let sessionCookieMaxAge = 30 * 24 * 3600

    func register(on routes: RouteTable) {
        routes.on(.get, "/auth/login") { request, _ in try await login(request) }
        routes.on(.get, "/auth/callback") { request, context in try await callback(request, context) }
        routes.on(.post, "/auth/logout") { request, _ in try await logout(request) }
    }

    private var identity: IdentitySettings { services.identity }
    private var secure: Bool { identity.publicURL?.isSecure ?? false }

    private func provider() throws(CanteenError) -> OpenIDProvider {
        guard let provider = identity.provider else {
            throw CanteenError(
                .notFound, code: .signInUnavailable,
                message: "this Canteen has no identity provider (canteen serve --oidc-issuer …); use a token")
        }
        return provider
    }

    // MARK: - Start

    func login(_ request: Request) async throws -> Response {
        let provider = try provider()
        let next = try Self.next(request.uri.queryParameters.get("next"))
        let (state, nonce, verifier) = OpenIDProvider.newSecrets()
        let location = try await provider.authorizationURL(state: state, nonce: nonce, codeVerifier: verifier)
        let browserSecret = try await services.sessions.beginLogin(
            LoginAttempt(state: state, nonce: nonce, codeVerifier: verifier, next: next, createdAt: services.clock()))
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        headers.append(
            HTTPField(
                name: .setCookie,
                value: Cookies.set(
                    IdentitySettings.loginCookie, browserSecret, path: "/auth", maxAge: Int(LoginAttempt.maxAge),
                    secure: secure)))
        return Response(status: .found, headers: headers)
    }

    /// `next`: a path of this server (`/app`, `/app?cafe=x`), never another site.
    static func next(_ text: String?) throws(CanteenError) -> String {
        guard let text, !text.isEmpty else { return "/app" }
        guard text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"), text.count <= 512,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw CanteenError(
                .invalid, code: .invalidQuery,
                message: "next is a path of this server such as /app, not '\(text.prefix(100))'", field: "next")
        }
        return text
    }

    // MARK: - Back from the provider

    func callback(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let provider = try provider()
        let query = request.uri.queryParameters
        guard let browserSecret = Cookies.value(IdentitySettings.loginCookie, in: request.headers),
            browserSecret.utf8.count <= 100,
            let attempt = try await services.sessions.takeLogin(browserSecret: browserSecret)
        else {
            throw CanteenError(
                .malformed, code: .signInStateMismatch,
                message: "no sign-in is under way in this browser (it was used already, took longer than "
                    + "10 minutes, or the sign-in cookie is missing); start again at /auth/login")
        }
        guard let state = query.get("state"),
            ConstantTime.equals(Data(state.utf8), Data(attempt.state.utf8))
        else {
            throw CanteenError(
                .malformed, code: .signInStateMismatch,
                message: "the provider's answer carries another state than this browser's sign-in", field: "state")
        }
        if let error = query.get("error") {
            let description = query.get("error_description").map { ": \($0.prefix(200))" } ?? ""
            throw CanteenError(
                .unauthenticated, code: .signInDenied,
                message: "the identity provider did not sign you in (\(error.prefix(60))\(description))",
                parameters: ["error": String(error.prefix(60))])
        }
        guard let code = query.get("code"), !code.isEmpty, code.utf8.count <= 4096 else {
            throw CanteenError(
                .malformed, code: .invalidQuery, message: "the provider's answer has no code", field: "code")
        }
        let answer = try await provider.exchange(code: code, codeVerifier: attempt.codeVerifier)
        let claims = try await provider.verifyIDToken(answer.idToken, nonce: attempt.nonce)
        let person = try provider.person(claims)
        let (session, secret) = try await services.sessions.createSession(
            SessionSpec(userID: person.userID, role: person.role, name: person.name, email: person.email))
        context.logger.info("signed in", metadata: ["session": "\(session.id)", "role": "\(session.role.rawValue)"])
        var headers: HTTPFields = [.location: attempt.next, .cacheControl: "no-store"]
        headers.append(
            HTTPField(
                name: .setCookie,
                value: Cookies.set(
                    identity.sessionCookie, secret, path: "/", maxAge: Self.sessionCookieMaxAge, secure: secure)))
        headers.append(
            HTTPField(
                name: .setCookie,
                value: Cookies.set(
                    IdentitySettings.loginCookie, "", path: "/auth", maxAge: 0, secure: secure)))
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: - Ending

    /// Ends the session of the cookie (a write: `Origin` must be the public URL's); 204 either way.
    func logout(_ request: Request) async throws -> Response {
        if let secret = Cookies.value(identity.sessionCookie, in: request.headers),
            secret.utf8.count <= APILimits.maxTokenBytes
        {
            try Authentication(tokens: services.tokens, sessions: services.sessions, identity: identity)
                .checkOrigin(request)
            try await services.sessions.endSession(secret: secret)
        }
        return Response(status: .noContent, headers: Self.clearingSession(identity))
    }

    /// `Set-Cookie` deleting the session cookie.
    static func clearingSession(_ identity: IdentitySettings) -> HTTPFields {
        var headers = HTTPFields()
        headers.append(
            HTTPField(
                name: .setCookie,
                value: Cookies.set(
                    identity.sessionCookie, "", path: "/", maxAge: 0, secure: identity.publicURL?.isSecure ?? false)))
        headers[.cacheControl] = "no-store"
        return headers
    }
}
