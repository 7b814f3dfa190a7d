import Foundation

/// Random identifiers and secrets from the system's secure generator.
enum RandomID {
    /// `prefix_` and 12 URL-safe random characters (72 bits), e.g. `ord_x3Kq9…`.
    static func make(_ prefix: String) -> String { "\(prefix)_\(base64URL(bytes: 9))" }

    /// `count` random bytes as unpadded base64url.
    static func base64URL(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Data(bytes.prefix(count)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
