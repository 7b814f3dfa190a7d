import CanteenCore
import CanteenJSON
import Foundation
import JWTKit

/// One public key of the provider's JWKS that Canteen accepts: RSA for RS256, P-256 for ES256.
struct VerificationKey: Sendable {
    /// The algorithms a provider's token may be signed with. `none`, HMAC and everything else are refused.
    static let algorithms: Set<String> = ["RS256", "ES256"]

    let keyID: String
    /// `RS256` or `ES256`.
    let algorithm: String
    let verifier: any JWTAlgorithm

    /// Whether `signature` signs `input` with this key.
    func verifies(_ signature: [UInt8], _ input: [UInt8]) -> Bool {
        (try? verifier.verify(signature, signs: input)) ?? false
    }

    /// The keys of a JWKS document that Canteen accepts. Keys of other types (`oct`: HMAC secrets,
    /// which a provider never publishes), other curves or other algorithms, keys meant for
    /// encryption and keys without `kid` are left out.
    static func keys(jwks: JSONValue) async -> [String: VerificationKey] {
        var keys: [String: VerificationKey] = [:]
        for value in jwks.objectValue?["keys"].flatMap(\.arrayValue) ?? [] {
            guard let jwk = value.objectValue, let kid = jwk["kid"]?.stringValue, !kid.isEmpty,
                jwk["use"]?.stringValue ?? "sig" == "sig", keys[kid] == nil,
                let key = await key(jwk, kid: kid)
            else { continue }
            keys[kid] = key
        }
        return keys
    }

    private static func key(_ jwk: [String: JSONValue], kid: String) async -> VerificationKey? {
        let declared = jwk["alg"]?.stringValue
        let collection = JWTKeyCollection()
        let identifier = JWKIdentifier(string: kid)
        let algorithm: String
        switch jwk["kty"]?.stringValue {
        case "RSA":
            guard declared == nil || declared == "RS256", let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue,
                (try? await collection.add(jwk: .rsa(.rs256, identifier: identifier, modulus: n, exponent: e))) != nil
            else { return nil }
            algorithm = "RS256"
        case "EC":
            guard declared == nil || declared == "ES256", jwk["crv"]?.stringValue == "P-256",
                let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
                (try? await collection.add(jwk: .ecdsa(.es256, identifier: identifier, x: x, y: y, curve: .p256)))
                    != nil
            else { return nil }
            algorithm = "ES256"
        default:
            return nil
        }
        guard let verifier = try? await collection.getKey(for: identifier, alg: algorithm),
            verifier.name == algorithm
        else { return nil }
        return VerificationKey(keyID: kid, algorithm: algorithm, verifier: verifier)
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }
}
