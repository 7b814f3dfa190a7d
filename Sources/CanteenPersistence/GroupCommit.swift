import Synchronization

/// Runs many callers' writes in one transaction, so that one fsync makes a whole batch durable.
///
/// Callers `submit` a job and wait. The first caller to find no batch running becomes the
/// leader: it takes every queued job (its own included), runs them through `perform` in one
/// transaction, hands each waiter its result, and passes leadership to the first job that
/// queued meanwhile. No background task exists; an idle queue costs nothing.
public final class GroupCommit<Job: Sendable, Output: Sendable>: Sendable {
    private enum Signal: Sendable {
        case done(Result<Output, any Error>)
        case lead
    }

    private struct Waiter {
        let id: UInt64
        let job: Job
        let continuation: CheckedContinuation<Signal, Never>
    }

    private struct State {
        var queue: [Waiter] = []
        var leading = false
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let perform: @Sendable ([Job]) async -> [Result<Output, any Error>]

    /// - Parameter perform: runs a batch in one transaction and returns one result per job, in order.
    public init(maxBatch: Int = 64, perform: @escaping @Sendable ([Job]) async -> [Result<Output, any Error>]) {
        self.maxBatch = max(1, maxBatch)
        self.perform = perform
    }

    /// Runs `job` in the next batch and returns its own result.
    public func submit(_ job: Job) async throws -> Output {
        var myID: UInt64 = 0
        let signal = await withCheckedContinuation { (continuation: CheckedContinuation<Signal, Never>) in
            let leads = state.withLock { state -> Bool in
                myID = state.nextID
                state.nextID &+= 1
                state.queue.append(Waiter(id: myID, job: job, continuation: continuation))
                if state.leading { return false }
                state.leading = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch signal {
        case .done(let result):
            return try result.get()
        case .lead:
            return try await lead(myID).get()
        }
    }

    /// Runs one batch containing `myID`'s job, wakes its other waiters and the next leader.
    private func lead(_ myID: UInt64) async -> Result<Output, any Error> {
        let batch = state.withLock { state -> [Waiter] in
            let taken = Array(state.queue.prefix(maxBatch))
            state.queue.removeFirst(taken.count)
            return taken
        }
        let results = await perform(batch.map(\.job))
        var mine: Result<Output, any Error>?
        let padded =
            results
            + Array(repeating: .failure(GroupCommitError.lostResult), count: max(0, batch.count - results.count))
        for (waiter, result) in zip(batch, padded) {
            if waiter.id == myID {
                mine = result
            } else {
                waiter.continuation.resume(returning: .done(result))
            }
        }
        let next = state.withLock { state -> Waiter? in
            guard let first = state.queue.first else {
                state.leading = false
                return nil
            }
            return first
        }
        next?.continuation.resume(returning: .lead)
        return mine ?? .failure(GroupCommitError.lostResult)
    }
}

/// A batch returned fewer results than jobs (a bug in `perform`).
public struct GroupCommitError: Error {
    public static let lostResult = GroupCommitError()
}
