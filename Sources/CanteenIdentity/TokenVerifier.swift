import CanteenCore
import CanteenJSON
import Foundation

/// Verifies a provider's token as OpenID Connect Core §3.1.3.7 (ID tokens) and RFC 9068 (JWT
/// access tokens) say: signature with a key of the provider's JWKS (RS256 or ES256), `iss`,
/// `aud`, `azp`, `exp`, `iat`, `nbf` with at most 60 s of clock skew, and the ID token's `nonce`.
struct TokenVerifier: Sendable {
    /// How far clocks may disagree.
    static let clockSkew: TimeInterval = 60

    let issuer: String
    let clientID: String
    let keys: ProviderKeys
    let clock: @Sendable () -> Date

    /// The claims of `token` once every check passed; `token_invalid` naming the first that failed.
    /// `nonce` is required for an ID token (nil for an access token).
    func verify(_ token: String, nonce: String?) async throws -> VerifiedClaims {
        let jws = try CompactJWS(token)
        guard let algorithm = jws.algorithm else { throw TokenCheck.algorithm.failure("the header has no alg") }
        guard VerificationKey.algorithms.contains(algorithm) else {
            let kind =
                algorithm.lowercased() == "none"
                ? "an unsigned token"
                : algorithm.uppercased().hasPrefix("HS")
                    ? "an HMAC-signed token" : "a token signed with \(algorithm.prefix(20))"
            throw TokenCheck.algorithm.failure("\(kind) is not accepted; only RS256 and ES256 are")
        }
        let key = try await keys.key(id: jws.keyID, algorithm: algorithm)
        guard key.algorithm == algorithm else {
            throw TokenCheck.algorithm.failure(
                "key '\(key.keyID)' is a \(key.algorithm) key, the token says \(algorithm)")
        }
        guard key.verifies(jws.signature, jws.signingInput) else {
            throw TokenCheck.signature.failure("the signature does not verify with key '\(key.keyID)'")
        }
        try checkClaims(jws.claims, nonce: nonce)
        return VerifiedClaims(claims: jws.claims)
    }

    /// Everything but the signature.
    func checkClaims(_ claims: [String: JSONValue], nonce: String?) throws(CanteenError) {
        guard let iss = claims["iss"]?.stringValue, iss == issuer else {
            throw TokenCheck.issuer.failure(
                "iss is '\(claims["iss"]?.stringValue?.prefix(120) ?? "missing")', not '\(issuer)'")
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let audience)?: audiences = [audience]
        case .array(let values)?: audiences = values.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(clientID) else {
            throw TokenCheck.audience.failure(
                "aud \(audiences.map { "'\($0.prefix(80))'" }) does not hold this client id")
        }
        let azp = claims["azp"]?.stringValue
        if azp != nil || audiences.count > 1 {
            guard azp == clientID else {
                throw TokenCheck.authorizedParty.failure(
                    "azp is '\(azp?.prefix(80) ?? "missing")', not this client id (required when aud has several values)"
                )
            }
        }
        let now = clock()
        guard let exp = Self.instant(claims["exp"]) else {
            throw TokenCheck.expiry.failure("exp is missing or not a number")
        }
        guard now.timeIntervalSince(exp) <= Self.clockSkew else {
            throw TokenCheck.expiry.failure("the token expired at \(RFC3339.utcSeconds(exp))")
        }
        guard let iat = Self.instant(claims["iat"]) else {
            throw TokenCheck.issuedAt.failure("iat is missing or not a number")
        }
        guard iat.timeIntervalSince(now) <= Self.clockSkew else {
            throw TokenCheck.issuedAt.failure("iat \(RFC3339.utcSeconds(iat)) is more than 60 s in the future")
        }
        if let value = claims["nbf"] {
            guard let nbf = Self.instant(value), nbf.timeIntervalSince(now) <= Self.clockSkew else {
                throw TokenCheck.notBefore.failure(
                    "the token is not valid before \(Self.instant(value).map(RFC3339.utcSeconds) ?? "?")")
            }
        }
        if let nonce {
            guard let given = claims["nonce"]?.stringValue,
                ConstantTime.equals(Data(given.utf8), Data(nonce.utf8))
            else {
                throw TokenCheck.nonce.failure("the ID token's nonce is not the one this sign-in sent")
            }
        }
    }

    /// A NumericDate (seconds since 1970, possibly fractional).
    static func instant(_ value: JSONValue?) -> Date? {
        switch value {
        case .int(let seconds)?: Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds)?: seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
        default: nil
        }
    }
}
