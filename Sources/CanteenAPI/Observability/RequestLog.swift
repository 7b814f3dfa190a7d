import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Request ids: the client's `X-Request-ID` when it is sane, else a new one; bound to the
/// request's task so that every log line written while it is handled carries it.
public enum RequestLog {
    /// `X-Request-ID`, read from the request and written on the response.
    public static let header = HTTPField.Name("X-Request-ID")!
    /// The metadata key of the id in log lines.
    public static let metadataKey = "request_id"

    /// The id of the request this task is handling, if any.
    @TaskLocal public static var currentID: String?

    /// Adds `request_id` to every log line written inside a request's task, whatever logger
    /// writes it: give it to `LoggingSystem.bootstrap` or to a `Logger`.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = currentID else { return [:] }
        return [metadataKey: .string(id)]
    }

    /// The client's id when it is 1–128 of `A-Z a-z 0-9 - _ . : @ / + =` (a UUID, a ULID, a
    /// trace id), else nil: anything else could forge log lines or carry a secret around.
    public static func accepted(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count) else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                || "-_.:@/+=".utf8.contains(byte)
        }
        return allowed ? value : nil
    }

    /// A new id: 16 URL-safe characters, unique in the process and unlike another process's: a
    /// counter mixed (SplitMix64's finalizer, a bijection) with two seeds read once from the
    /// system's generator, so a request costs no system call (it cost two reads). An id is for
    /// finding a request's lines, never a secret: it grants nothing, and clients may send their own.
    public static func make() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        let bits = (mix(seeds.0 &+ count), mix(seeds.1 ^ count))
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let word = index < 8 ? bits.0 : bits.1
                buffer[index] = character(UInt8(truncatingIfNeeded: word >> (UInt64(index % 8) * 6)) & 63)
            }
            return 16
        }
    }

    private static let counter = Atomic<UInt64>(0)
    private static let seeds: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// SplitMix64's output function: a bijection of 64-bit words that spreads every bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The character of a 6-bit value: `0-9`, `A-Z`, `a-z`, `-`, `_` (by arithmetic: a table
    /// lookup costs a lazy global's check and a bounds check per character).
    @inline(__always)
    static func character(_ value: UInt8) -> UInt8 {
        switch value {
        case 0..<10: UInt8(ascii: "0") + value
        case 10..<36: UInt8(ascii: "A") + value - 10
        case 36..<62: UInt8(ascii: "a") + value - 36
        case 62: UInt8(ascii: "-")
        default: UInt8(ascii: "_")
        }
    }
}

/// Canteen's log lines name a request by `request_id` only: Hummingbird's own per-request id
/// (`hb.request.id`, set on every request's logger) is not kept by this handler.
public struct CanteenLogHandler: LogHandler {
    private var inner: any LogHandler

    public init(_ inner: any LogHandler) { self.inner = inner }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue.filter { $0.key != Self.hummingbirdRequestID } }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { if key != Self.hummingbirdRequestID { inner[metadataKey: key] = newValue } }
    }

    public func log(event: LogEvent) { inner.log(event: event) }

    static let hummingbirdRequestID = "hb.request.id"
}
