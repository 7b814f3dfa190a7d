import CanteenCore
import Crypto
import Foundation

/// The `Canteen-Signature` header of a delivery, the scheme Stripe uses:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>`.
///
/// The key is the secret's text as UTF-8 (`whsec_…`, all of it). During the 24 hours after a
/// rotation a delivery carries one `v1` per secret, the new one first: a receiver accepts the
/// delivery when any `v1` matches a secret it holds, so it may switch secrets at any time
/// within the overlap.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Canteen-Signature"

    /// The header for `body` sent at `instant`, signed with every secret of `secrets`.
    public static func header(body: [UInt8], secrets: WebhookSecrets, at instant: Date) -> String {
        let timestamp = Int64(instant.timeIntervalSince1970.rounded(.down))
        var header = "t=\(timestamp),v1=\(signature(body: body, secret: secrets.current, timestamp: timestamp))"
        if let previous = secrets.previous {
            header += ",v1=\(signature(body: body, secret: previous, timestamp: timestamp))"
        }
        return header
    }

    /// Hex HMAC-SHA256 of `"<timestamp>.<body>"` keyed with the secret's UTF-8 bytes.
    public static func signature(body: [UInt8], secret: String, timestamp: Int64) -> String {
        var message = Array("\(timestamp).".utf8)
        message += body
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
        }.joined()
    }

    /// Whether `header` signs `body` with `secret`, at a time within `tolerance` of `now`
    /// (what a receiver checks; the tolerance limits replays of a captured delivery).
    public static func verify(
        header: String, body: [UInt8], secret: String, now: Date,
        tolerance: TimeInterval = 300
    ) -> Bool {
        var timestamp: Int64?
        var candidates: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0].trimmingCharacters(in: .whitespaces) {
            case "t": timestamp = Int64(pair[1])
            case "v1": candidates.append(String(pair[1]))
            default: continue
            }
        }
        guard let timestamp, abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { return false }
        let expected = Array(signature(body: body, secret: secret, timestamp: timestamp).utf8)
        return candidates.contains { candidate in
            let bytes = Array(candidate.utf8)
            // Constant time over the candidate, so a receiver's check does not leak where it differs.
            guard bytes.count == expected.count else { return false }
            return zip(bytes, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
