import CanteenCore
import Foundation
import Synchronization

/// Keys whose first request is still running, per token: a second request with the same key
/// meanwhile gets 409 `idempotency_key_in_use` instead of racing the first.
///
/// The stored response is written in the order's own transaction, so a request that dies
/// midway leaves nothing behind and its key can simply be retried.
final class IdempotencyGate: Sendable {
    private let running = Mutex<Set<String>>([])

    /// Runs `body` while holding the key; throws `idempotency_key_in_use` when it is held.
    func run<T: Sendable>(tokenID: String, key: String, _ body: () async throws -> T) async throws -> T {
        let slot = "\(tokenID)\u{0}\(key)"
        let acquired = running.withLock { $0.insert(slot).inserted }
        guard acquired else {
            throw CanteenError(
                .conflict, code: .idempotencyKeyInUse,
                message: "a request with this Idempotency-Key is still being processed; retry shortly",
                field: "Idempotency-Key")
        }
        defer { _ = running.withLock { $0.remove(slot) } }
        return try await body()
    }
}
