import CanteenCore
import Foundation

/// The checks a provider's token must pass, each named in the refusal (`token_invalid` with
/// parameter `check`), so that a log or a test tells which one failed.
public enum TokenCheck: String, Sendable, CaseIterable {
    /// Three base64url parts of JSON.
    case form
    /// `alg` is RS256 or ES256 (never `none`, never HMAC).
    case algorithm
    /// A key of the provider's JWKS has the token's `kid` (after one refetch at most per 10 s).
    case key
    /// The signature verifies with that key.
    case signature
    /// `iss` is the provider's issuer, exactly.
    case issuer
    /// `aud` is, or holds, the client id.
    case audience
    /// `azp`, when present or when `aud` has several values, is the client id.
    case authorizedParty = "authorized_party"
    /// `exp` is not past (60 s of clock skew allowed).
    case expiry
    /// `iat` is not in the future by more than 60 s.
    case issuedAt = "issued_at"
    /// `nbf`, when present, is not in the future by more than 60 s.
    case notBefore = "not_before"
    /// `nonce` is the one this sign-in sent.
    case nonce
    /// The claim that names the user is there and is a valid user id.
    case subject

    /// `token_invalid` (401) for this check, with why.
    public func failure(_ why: String) -> CanteenError {
        CanteenError(
            .unauthenticated, code: .tokenInvalid, message: "the provider's token was refused (\(rawValue)): \(why)",
            parameters: ["check": rawValue])
    }
}
