import Foundation
import Synchronization

/// Which tokens were used lately and when their use was last written down: a store notes a
/// token's use at most once per `interval`, so that every request does not cost a write.
public final class TokenUse: Sendable {
    /// How stale a token's `lastUsedAt` may be.
    public static let interval: TimeInterval = 60

    private let written = Mutex<[String: Date]>([:])

    public init() {}

    /// Whether a use of `tokenID` at `now` should be written (and, when so, takes it as written).
    public func shouldWrite(_ tokenID: String, at now: Date) -> Bool {
        written.withLock { written in
            if let last = written[tokenID], now.timeIntervalSince(last) < Self.interval, now >= last { return false }
            if written.count > 10_000 { written.removeAll() }
            written[tokenID] = now
            return true
        }
    }

    /// Forgets a write that failed, so the next use tries again.
    public func forget(_ tokenID: String) {
        _ = written.withLock { $0.removeValue(forKey: tokenID) }
    }
}
