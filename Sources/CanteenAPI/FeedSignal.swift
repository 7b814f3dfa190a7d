import Foundation
import Synchronization

/// Wakes kitchen displays long-polling a café's ticket feed the moment a change is known.
///
/// Waiters are suspended continuations (no thread, no polling loop each); a change resumes
/// every waiter of its café. The latest sequence per café is kept so that a change committed
/// between a display's query and its wait is never missed.
final class FeedSignal: Sendable {
    private struct State {
        var latest: [String: Int64] = [:]
        var waiters: [String: [UUID: CheckedContinuation<Bool, Never>]] = [:]
        var released = false
    }

    private let state = Mutex(State())

    /// Records committed changes (café → its latest sequence) and wakes the waiters of every
    /// café whose latest change moved.
    func publish(_ changes: [String: Int64]) {
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var woken: [CheckedContinuation<Bool, Never>] = []
            for (cafeID, sequence) in changes where sequence > (state.latest[cafeID] ?? 0) {
                state.latest[cafeID] = sequence
                woken += (state.waiters.removeValue(forKey: cafeID) ?? [:]).values
            }
            return woken
        }
        for continuation in woken { continuation.resume(returning: true) }
    }

    /// The latest sequence known for the café (0 when it has no ticket).
    func latest(cafeID: String) -> Int64 { state.withLock { $0.latest[cafeID] ?? 0 } }

    /// Wakes every waiter (on shutdown): they answer with what they have.
    func releaseAll() {
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            defer { state.waiters.removeAll(); state.released = true }
            return state.waiters.values.flatMap(\.values)
        }
        for continuation in woken { continuation.resume(returning: false) }
    }

    /// Number of displays currently waiting (for tests and metrics).
    var waiterCount: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// True as soon as the café has a change after `cursor`; false at the timeout or on cancellation.
    func wait(cafeID: String, after cursor: Int64, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForChange(cafeID: cafeID, after: cursor) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitForChange(cafeID: String, after cursor: Int64) async -> Bool {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if (state.latest[cafeID] ?? 0) > cursor { return true }
                    if state.released { return false }
                    if Task.isCancelled { return false }
                    state.waiters[cafeID, default: [:]][id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters[cafeID]?.removeValue(forKey: id) }
            continuation?.resume(returning: false)
        }
    }
}
