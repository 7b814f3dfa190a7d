import CanteenJSON
import Foundation

/// Where access tokens are kept (hashed).
public protocol TokenRepository: Sendable {
    /// Creates a token (the spec already validated); the returned secret is shown once and never
    /// stored. `cafe_not_found` when it names a café that does not exist.
    /// `audit` (when given) is recorded in the same transaction (never the secret).
    func createToken(_ spec: TokenSpec, audit: AuditEntry?) async throws -> (token: AccessToken, secret: String)
    /// Every token, newest first, revoked ones included, each with when it was last used.
    func tokens() async throws -> [AccessToken]
    /// Revokes a token by its public id; throws `token_not_found`.
    func revokeToken(id: String, audit: AuditEntry?) async throws
    /// The live token whose secret this is, or nil.
    func authenticate(secret: String) async throws -> AccessToken?
}

extension TokenRepository {
    public func createToken(_ spec: TokenSpec) async throws -> (token: AccessToken, secret: String) {
        try await createToken(spec, audit: nil)
    }

    public func revokeToken(id: String) async throws { try await revokeToken(id: id, audit: nil) }

    /// Creates a kiosk, kitchen or ops token.
    public func createToken(role: Role, cafeID: String?, name: String?) async throws -> (
        token: AccessToken, secret: String
    ) {
        try await createToken(TokenSpec(role: role, cafeID: cafeID, name: name))
    }
}
