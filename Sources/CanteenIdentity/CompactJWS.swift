import CanteenCore
import Foundation

/// A JSON Web Signature in compact form (`header.payload.signature`), split and decoded but not
/// yet verified: what the header claims, the claims, and the bytes the signature covers.
struct CompactJWS: Sendable {
    /// The protected header.
    let header: [String: JSONValue]
    /// The payload's claims.
    let claims: [String: JSONValue]
    /// `header.payload` as sent: what the signature signs.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// The longest token looked at (a provider's tokens are a few kilobytes).
    static let maxBytes = 16 << 10

    /// `alg` of the header.
    var algorithm: String? { header["alg"]?.stringValue }
    /// `kid` of the header.
    var keyID: String? { header["kid"]?.stringValue }
    /// `typ` of the header.
    var type: String? { header["typ"]?.stringValue }

    /// Splits and decodes `token`; `token_invalid` naming what is wrong with its form.
    init(_ token: String) throws(CanteenError) {
        guard token.utf8.count <= Self.maxBytes else { throw TokenCheck.form.failure("it is longer than 16 KiB") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TokenCheck.form.failure("a signed JWT has three dot-separated parts, this has \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = Self.object(headerBytes) else {
            throw TokenCheck.form.failure("its header is not base64url-encoded JSON")
        }
        guard let payloadBytes = Base64URL.decode(parts[1]), let claims = Self.object(payloadBytes) else {
            throw TokenCheck.form.failure("its payload is not base64url-encoded JSON")
        }
        guard let signature = Base64URL.decode(parts[2]) else {
            throw TokenCheck.form.failure("its signature is not base64url")
        }
        self.header = header
        self.claims = claims
        self.signature = signature
        signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    private static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        (try? JSONValue.parse(Data(bytes)))?.objectValue
    }
}

/// Unpadded base64url (RFC 4648 §5), as JWS uses it.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "=") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
