import Synchronization

/// The first of a database call's outcome and its deadlines.
final class DeadlineRace<T: Sendable>: Sendable {
    /// Whether a connection was leased (set by the call, read by the deadline).
    let granted = Atomic<Bool>(false)
    private let state = Mutex<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>((nil, nil))

    /// Settles the race; false when it was settled already.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return settled
    }

    /// The outcome, once settled.
    func outcome() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<T, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
