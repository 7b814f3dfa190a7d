import Synchronization

/// Opens once the schema is migrated; store calls wait for it (or fail with its error).
final class MigrationGate: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case open
        case failed(any Error)
    }

    private let state = Mutex(State.waiting([]))
    private let isOpen = Atomic<Bool>(false)

    func wait() async throws {
        if isOpen.load(ordering: .acquiring) { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .open: return .success(())
                case .failed(let error): return .failure(error)
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func open() { settle(.open) }

    func fail(_ error: any Error) { settle(.failed(error)) }

    private func settle(_ final: State) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = final
            return waiters
        }
        if case .open = final { isOpen.store(true, ordering: .releasing) }
        for waiter in waiters {
            switch final {
            case .failed(let error): waiter.resume(throwing: error)
            default: waiter.resume()
            }
        }
    }
}
