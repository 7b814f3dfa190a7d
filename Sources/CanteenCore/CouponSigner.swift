import Crypto
import Foundation

/// Signs and checks coupon codes: `COUPONID.SIGNATURE`, where SIGNATURE is the first 16 bytes of
/// HMAC-SHA256(server key, "coupon:" + COUPONID) in base64url. A code cannot be forged or edited without the
/// key; the coupon's terms (amount, café, validity, uses) stay in the database under COUPONID.
public struct CouponSigner: Sendable {
    /// The key's bytes (SymmetricKey is not Sendable).
    private let keyBytes: [UInt8]

    public init(key: SymmetricKey) {
        self.keyBytes = key.withUnsafeBytes { Array($0) }
    }

    /// The signed code of a coupon id (1–32 characters of A–Z, a–z, 0–9, `-`, `_`).
    public func code(couponID: String) throws -> String {
        try Self.validate(couponID)
        return couponID + "." + signature(couponID)
    }

    /// The coupon id of a signed code; `invalid_coupon_code` when the code is malformed or its signature does
    /// not match.
    public func couponID(code: String) throws -> String {
        let parts = code.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw Self.invalid("a coupon code is COUPONID.SIGNATURE") }
        let couponID = String(parts[0])
        try Self.validate(couponID)
        let expected = Array(signature(couponID).utf8)
        let given = Array(parts[1].utf8)
        guard given.count == expected.count, zip(given, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw Self.invalid("the coupon code's signature does not match: it was not issued here or was edited")
        }
        return couponID
    }

    func signature(_ couponID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("coupon:\(couponID)".utf8), using: SymmetricKey(data: keyBytes))
        return Data(Array(mac).prefix(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func validate(_ couponID: String) throws {
        guard Coupon.isValidID(couponID) else {
            throw invalid("a coupon id has 1 to 32 characters of A–Z, a–z, 0–9, - and _")
        }
    }

    static func invalid(_ message: String) -> CanteenError {
        CanteenError(.invalid, code: .invalidCouponCode, message: message, field: "coupon")
    }
}
