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
        return base64URL(encoding: bytes[..<count])
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as unpadded base64url (RFC 4648 §5), written out directly: ids are made for
    /// every order and ticket inside the single writer.
    static func base64URL(encoding bytes: ArraySlice<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let chunk = bytes[index..<min(index + 3, bytes.endIndex)]
            var value = UInt32(0)
            for (shift, byte) in zip([16, 8, 0] as [UInt32], chunk) { value |= UInt32(byte) << shift }
            for position in 0...chunk.count {
                text.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }
}
