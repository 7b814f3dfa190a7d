import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Random identifiers and secrets from the kernel's secure generator. One per application (the
/// stores share it): it keeps a small pool of unused entropy.
public final class RandomID: Sendable {
    public init() {}

    /// `prefix_` and 12 URL-safe random characters (72 bits), e.g. `ord_x3Kq9…`.
    public func make(_ prefix: String) -> String { "\(prefix)_\(base64URL(bytes: 9))" }

    /// `prefix_`, 8 characters of the Unix time in milliseconds and 8 random ones (48 bits),
    /// e.g. `ord_0n2Kq9Zx…`: ids of one moment sort together, so the orders', lines' and
    /// tickets' primary-key indexes grow at their end instead of touching a random page per
    /// row, and a group commit writes far fewer pages. The characters are URL-safe and in
    /// ASCII order, so text order is time order to the millisecond.
    public func timeOrdered(_ prefix: String, at instant: Date) -> String {
        let millis =
            Int64(exactly: (instant.timeIntervalSince1970 * 1000).rounded(.down)).map { UInt64(clamping: $0) } ?? 0
        var random = UInt64(0)
        for byte in randomBytes(6) { random = random << 8 | UInt64(byte) }
        return "\(prefix)_" + Self.sortable(millis & 0xFFFF_FFFF_FFFF) + Self.sortable(random)
    }

    /// URL-safe characters in ASCII order: `-`, digits, upper case, `_`, lower case.
    private static let sortableAlphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    /// 48 bits as 8 characters, most significant first.
    static func sortable(_ value: UInt64) -> String {
        let text = (0..<8).reversed().map { sortableAlphabet[Int((value >> UInt64(6 * $0)) & 0x3F)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// `count` random bytes as unpadded base64url.
    public func base64URL(bytes count: Int) -> String {
        Self.base64URL(encoding: randomBytes(count)[...])
    }

    /// Unused bytes of the last `getentropy` call: ids are made for every order and ticket
    /// inside the single writer, and a system call for every eight bytes showed in profiles.
    private let pool = Mutex<[UInt8]>([])

    /// `count` bytes from the kernel's generator (`getentropy`, 256 bytes per call).
    func randomBytes(_ count: Int) -> [UInt8] {
        pool.withLock { pool in
            var taken: [UInt8] = []
            taken.reserveCapacity(count)
            while taken.count < count {
                if pool.isEmpty { pool = Self.freshEntropy() }
                let part = min(count - taken.count, pool.count)
                taken.append(contentsOf: pool.suffix(part))
                pool.removeLast(part)
            }
            return taken
        }
    }

    private static func freshEntropy() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 256)
        #if canImport(Glibc)
            if bytes.withUnsafeMutableBytes({ getentropy($0.baseAddress, $0.count) }) == 0 { return bytes }
        #endif
        var generator = SystemRandomNumberGenerator()
        for index in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.replaceSubrange(index..<index + 8, with: $0) }
        }
        return bytes
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
