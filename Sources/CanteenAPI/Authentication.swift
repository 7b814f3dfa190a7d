import CanteenCore
import CanteenFormat
import CanteenIdentity
import Crypto
import Foundation
import Hummingbird

/// Verifies who a request comes from: a bearer token when one is sent (a token made by ops, or,
/// with sign-in configured, the identity provider's JWT access token), else the session cookie
/// of a person signed in. A malformed or unknown bearer token is rejected with 401; an unknown
/// or idle session cookie is ignored (the request is then anonymous). Requests authenticated by
/// the cookie that change something (POST, PUT, PATCH, DELETE) must carry an `Origin` equal to
/// the public URL's, or are refused with 403 `origin_mismatch`.
///
/// Routes decide which roles they need (`context.require(.ops)`). `GET /healthz`, `/readyz`, the pages
/// (`/kds`, `/kiosk`, `/board`, `/app`, `/ops` and their `/assets/…`) and the sign-in's own routes need
/// no token and ignore whatever `Authorization` a health checker or a browser sends. Part of
/// `APIMiddleware`.
struct Authentication: Sendable {
    let tokens: any TokenRepository
    let sessions: any SessionRepository
    let identity: IdentitySettings

    init(tokens: any TokenRepository, sessions: any SessionRepository, identity: IdentitySettings = .tokensOnly) {
        self.tokens = tokens
        self.sessions = sessions
        self.identity = identity
    }

    /// Paths answered without looking at `Authorization` or cookies at all.
    static let unauthenticatedPaths: Set<String> = [
        "/healthz", "/readyz", "/kds", "/kiosk", "/board", "/app", "/ops", "/app-sw.js",
        "/auth/login", "/auth/callback", "/auth/logout",
    ]

    /// `context` with the request's verified credentials, if it sent any.
    ///
    /// Each way in is its own function, not inlined here: every request passes through this
    /// frame, and the connection's task keeps the most stack it ever used while it stays open.
    func verified(_ request: Request, _ context: CanteenRequestContext) async throws -> CanteenRequestContext {
        switch Self.presented(request, sessionCookie: identity.provider == nil ? nil : identity.sessionCookie) {
        case .nothing: return context
        case .bearer(let header): return try await bearer(header, context)
        case .session(let secret): return try await session(secret, request, context)
        }
    }

    /// What a request presents, if it needs anything.
    private enum Presented {
        case nothing
        case bearer(String)
        case session(String)
    }

    @inline(never)
    private static func presented(_ request: Request, sessionCookie: String?) -> Presented {
        // The credentials first: most requests without any (a probe, a page) need no path lookup.
        let presented: Presented
        if let header = request.headers.value(of: .authorization) {
            presented = .bearer(header)
        } else if let sessionCookie, let secret = Cookies.value(sessionCookie, in: request.headers),
            secret.utf8.count <= APILimits.maxTokenBytes
        {
            presented = .session(secret)
        } else {
            return .nothing
        }
        let path = request.uri.path
        guard !unauthenticatedPaths.contains(path), !path.hasPrefix("/assets/") else { return .nothing }
        return presented
    }

    @inline(never)
    private func session(
        _ secret: String, _ request: Request, _ context: CanteenRequestContext
    ) async throws -> CanteenRequestContext {
        guard let session = try await sessions.authenticate(secret: secret) else { return context }
        if Self.changesState(request.method) {
            try checkOrigin(request)
        }
        var context = context
        context.verified = VerifiedToken(
            session.accessToken, credential: .session,
            person: SignedInPerson(
                userID: session.userID, role: session.role,
                name: session.name, email: session.email))
        return context
    }

    // MARK: - Bearer tokens

    @inline(never)
    private func bearer(_ header: String, _ context: CanteenRequestContext) async throws -> CanteenRequestContext {
        let secret = try Self.bearerSecret(header)
        if let provider = identity.provider, Self.looksLikeJWT(secret) {
            return try await providerToken(secret, provider, context)
        }
        guard secret.utf8.count <= APILimits.maxTokenBytes, let token = try await tokens.authenticate(secret: secret)
        else {
            throw CanteenError.unauthenticated
        }
        var context = context
        context.token = token
        return context
    }

    @inline(never)
    private static func bearerSecret(_ header: String) throws(CanteenError) -> String {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw CanteenError(
                .unauthenticated, code: .unauthenticated,
                message: "the Authorization header must be 'Bearer TOKEN'", field: "Authorization")
        }
        return parts[1].trimmingHTTPWhitespace()
    }

    @inline(never)
    private func providerToken(
        _ secret: String, _ provider: OpenIDProvider, _ context: CanteenRequestContext
    ) async throws -> CanteenRequestContext {
        let person = try provider.person(try await provider.verifyAccessToken(secret))
        let token = AccessToken(
            id: Self.providerTokenID(person.userID), name: person.name, role: person.role,
            cafeID: nil, userID: person.userID, createdAt: Date(timeIntervalSince1970: 0),
            revokedAt: nil)
        var context = context
        context.verified = VerifiedToken(token, credential: .providerToken, person: person)
        return context
    }

    /// Three base64url parts: a JWT (Canteen's own tokens are `cnt_…` and hold no dot).
    static func looksLikeJWT(_ secret: String) -> Bool {
        secret.utf8.count <= 16 << 10 && secret.utf8.filter { $0 == UInt8(ascii: ".") }.count == 2
    }

    /// The id a provider's access token acts under (idempotency keys are scoped to it): the same
    /// for every token of one person, so a retry with a refreshed token replays the first answer.
    static func providerTokenID(_ userID: String) -> String {
        "idp_" + SHA256.hash(data: Data(userID.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: - Cookie-authenticated writes

    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }

    /// A write authenticated by the browser's cookie must say it comes from Canteen's own pages:
    /// `Origin` is the public URL's origin (a page of another site cannot forge it).
    func checkOrigin(_ request: Request) throws(CanteenError) {
        let origin = request.headers[.origin]
        guard let expected = identity.publicURL?.origin, let origin, origin.lowercased() == expected else {
            throw CanteenError(
                .forbidden, code: .originMismatch,
                message:
                    "a change made with the session cookie must come from \(identity.publicURL?.origin ?? "the public URL"); "
                    + "this request's Origin is \(request.headers[.origin].map { "'\($0.prefix(100))'" } ?? "missing")",
                field: "Origin")
        }
    }
}
