import CanteenCore
import Foundation
import Synchronization

/// Failed guesses at a secret a kiosk may try (an enrolment code, a card identifier), counted per
/// token and per café over a sliding window: once either holds `limit` failures (or guesses still
/// being answered) within `window`, the next guess is refused unchecked with `too_many_attempts`,
/// until the oldest failure is `window` old. A success is no failure.
///
/// The counts are this process's: several servers on one database each keep their own, so a
/// guesser spread over N servers gets N times the limit. The secrets are long enough for that not
/// to matter (see `EnrolmentCode`), and a count kept here costs no database write per failure.
final class GuessLimiter: Sendable {
    /// Failures allowed per token and per café within `window` seconds.
    let limit: Int
    let window: TimeInterval
    private let clock: @Sendable () -> Date

    private struct Count {
        /// When each failure still inside the window happened, oldest first (at most `limit`).
        var failures: [Date] = []
        /// Guesses let through and not answered yet: each may turn out a failure.
        var pending = 0
    }

    private let counts = Mutex<[String: Count]>([:])

    init(limit: Int = 10, window: TimeInterval = 60, clock: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.window = window
        self.clock = clock
    }

    /// Runs `guess` unless `token` or its café is over the limit (then throws `too_many_attempts`),
    /// counting a failure when it throws an error that `isFailure` says is a wrong guess.
    func guess<Value>(
        by token: AccessToken, isFailure: (CanteenError) -> Bool,
        _ guess: () async throws -> Value
    ) async throws -> Value {
        let keys = Self.keys(token)
        try admit(keys)
        do {
            let value = try await guess()
            settle(keys, failed: false)
            return value
        } catch {
            settle(keys, failed: (error as? CanteenError).map(isFailure) ?? false)
            throw error
        }
    }

    /// Whose counts a guess adds to: the token's and its café's (one count for all unbound tokens).
    static func keys(_ token: AccessToken) -> [String] {
        ["token " + token.id, "cafe " + (token.cafeID ?? "*")]
    }

    /// Lets a guess through and counts it as pending, or throws with the seconds until one is let through.
    private func admit(_ keys: [String]) throws(CanteenError) {
        let now = clock()
        let wait = counts.withLock { counts -> TimeInterval? in
            var wait: TimeInterval?
            for key in keys {
                var count = counts[key] ?? Count()
                count.failures.removeAll { $0 <= now - window }
                counts[key] = count.failures.isEmpty && count.pending == 0 ? nil : count
                guard count.failures.count + count.pending >= limit else { continue }
                let free: TimeInterval
                if count.failures.count >= limit {
                    // Full of failures: free when the oldest that counts leaves the window.
                    let oldest = count.failures[count.failures.count - limit]
                    free = oldest.addingTimeInterval(window).timeIntervalSince(now)
                } else {
                    free = 1  // guesses in flight fill it: one of them is answered soon
                }
                wait = max(wait ?? 0, free)
            }
            if wait == nil {
                for key in keys { counts[key, default: Count()].pending += 1 }
            }
            return wait
        }
        if let wait { throw .tooManyAttempts(retryAfter: max(1, Int(wait.rounded(.up)))) }
    }

    /// A guess let through was answered: a failure is counted, and unused counts are dropped.
    private func settle(_ keys: [String], failed: Bool) {
        let now = clock()
        counts.withLock { counts in
            for key in keys {
                guard var count = counts[key] else { continue }
                count.pending -= 1
                count.failures.removeAll { $0 <= now - window }
                if failed {
                    count.failures.append(now)
                    if count.failures.count > limit { count.failures.removeFirst(count.failures.count - limit) }
                }
                counts[key] = count.pending == 0 && count.failures.isEmpty ? nil : count
            }
        }
    }
}

extension CanteenError {
    /// 429 with `Retry-After`: too many wrong guesses lately; nothing was checked.
    static func tooManyAttempts(retryAfter seconds: Int) -> CanteenError {
        CanteenError(
            .throttled, code: .tooManyAttempts,
            message: "too many failed attempts; try again in \(seconds) seconds",
            parameters: ["seconds": String(seconds)])
    }
}
