import Foundation

/// Random identifiers and secrets from the system's secure generator.
enum RandomID {
    /// `prefix_` and 12 URL-safe random characters (72 bits), e.g. `ord_x3Kq9…`.
    static func make(_ prefix: String) -> String { "\(prefix)_\(base64URL(bytes: 9))" }

    /// `count` random bytes as unpadded base64url.
    static func base64URL(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
