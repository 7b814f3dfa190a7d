import Foundation
import Synchronization

/// Wakes kitchen displays long-polling a café's ticket feed the moment a change is known.
///
/// Waiters are suspended continuations (no thread, no polling loop, no task each): a change
/// resumes every waiter of its café at once. Deadlines are kept by one timer task that runs
/// only while someone waits. The latest sequence per café is kept so that a change known
/// between a display's query and its wait is never missed.
///
/// A waiter may say what it will do once woken (its `Preparation`: render its page). Waiters
/// asking the same `Question` are then woken together, after that work was done once, and each
/// gets its result. Without it, two thousand woken displays would each be scheduled twice: once
/// to find the page being rendered and wait for it, and again when it was.
final class FeedSignal<Question: Hashable & Sendable, Prepared: Sendable>: Sendable {
    /// What a waiter will do with the café's new latest change once woken, done once for all
    /// waiters asking the same question. (A class: waking copies each waiter, and this is one
    /// reference to copy, not a question's strings and a closure.)
    final class Preparation: Sendable {
        let question: Question
        /// Nil when it could not be done (the waiter then does it itself, and meets the error).
        let prepare: @Sendable (_ latest: Int64) async -> Prepared?

        init(question: Question, prepare: @escaping @Sendable (_ latest: Int64) async -> Prepared?) {
            self.question = question
            self.prepare = prepare
        }
    }

    /// How a wait ended.
    enum Wakeup: Sendable {
        /// The café's latest change is now `latest`, with what was prepared for it; `published`
        /// is when this process learnt of it (nil for a waiter that found it already there).
        case changed(latest: Int64, prepared: Prepared?, published: ContinuousClock.Instant?)
        /// The deadline passed, the waiter was cancelled, or the server is stopping.
        case ended

        var changed: Bool {
            if case .changed = self { return true }
            return false
        }
    }

    private struct Waiter {
        let continuation: UnsafeContinuation<Wakeup, Never>
        let deadline: ContinuousClock.Instant
        let preparation: Preparation?
    }

    /// Woken waiters of one café asking one question.
    private struct Group {
        let latest: Int64
        let preparation: Preparation
        var waiters: [Waiter]
    }

    private struct State {
        var latest: [String: Int64] = [:]
        var waiters: [String: [UInt64: Waiter]] = [:]
        /// No waiter's deadline is before this (it may be earlier than the earliest one left,
        /// after wake-ups): the timer looks through the waiters only once it has passed.
        var earliestDeadline: ContinuousClock.Instant?
        var nextID: UInt64 = 0
        var timerRunning = false
        var released = false
    }

    private let state = Mutex(State())
    /// How late past its deadline a waiter may be answered (the timer's longest sleep).
    private let deadlineSlack: Duration

    init(deadlineSlack: Duration = .milliseconds(100)) {
        self.deadlineSlack = deadlineSlack
    }

    /// Records committed changes (café → its latest sequence) and wakes the waiters of every
    /// café whose latest change moved.
    func publish(_ changes: [String: Int64]) {
        let now = ContinuousClock.now
        let woken = state.withLock { state -> [(latest: Int64, waiters: [UInt64: Waiter])] in
            var woken: [(latest: Int64, waiters: [UInt64: Waiter])] = []
            for (cafeID, sequence) in changes where sequence > (state.latest[cafeID] ?? 0) {
                state.latest[cafeID] = sequence
                if let waiting = state.waiters.removeValue(forKey: cafeID) { woken.append((sequence, waiting)) }
            }
            return woken
        }
        for (latest, waiters) in woken {
            // Grouped per café: one question asked of two cafés is prepared for each one's change.
            var groups: [Question: Group] = [:]
            for waiter in waiters.values {
                guard let preparation = waiter.preparation else {
                    waiter.continuation.resume(returning: .changed(latest: latest, prepared: nil, published: now))
                    continue
                }
                groups[preparation.question, default: Group(latest: latest, preparation: preparation, waiters: [])]
                    .waiters.append(waiter)
            }
            for group in groups.values {
                Task {
                    let prepared = await group.preparation.prepare(group.latest)
                    for waiter in group.waiters {
                        waiter.continuation.resume(
                            returning: .changed(latest: group.latest, prepared: prepared, published: now))
                    }
                }
            }
        }
    }

    /// The latest sequence known for the café (0 when it has no ticket).
    func latest(cafeID: String) -> Int64 { state.withLock { $0.latest[cafeID] ?? 0 } }

    /// Wakes every waiter (on shutdown): they answer with what they have; later waits return at once.
    func releaseAll() {
        let woken = state.withLock { state -> [Waiter] in
            state.released = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in woken { waiter.continuation.resume(returning: .ended) }
    }

    /// Whether every waiter was released (the server is stopping).
    var isReleased: Bool { state.withLock { $0.released } }

    /// Number of displays currently waiting (for tests and metrics).
    var waiterCount: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// `changed` as soon as the café has a change after `cursor` (with what `preparation` made of
    /// it); `ended` at the timeout, on cancellation or on shutdown.
    func wait(
        cafeID: String, after cursor: Int64, timeout: Duration,
        preparing preparation: Preparation? = nil
    ) async -> Wakeup {
        let deadline = ContinuousClock.now + timeout
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Wakeup, Never>) in
                var startTimer = false
                let immediate: Wakeup? = state.withLock { state in
                    // Already changed: the waiter does its own preparing, as if it had not waited.
                    if let latest = state.latest[cafeID], latest > cursor {
                        return .changed(latest: latest, prepared: nil, published: nil)
                    }
                    if state.released || Task.isCancelled || deadline <= .now { return .ended }
                    state.waiters[cafeID, default: [:]][id] = Waiter(
                        continuation: continuation, deadline: deadline,
                        preparation: preparation)
                    state.earliestDeadline = min(state.earliestDeadline ?? deadline, deadline)
                    if !state.timerRunning {
                        state.timerRunning = true
                        startTimer = true
                    }
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
                if startTimer { Task { await self.expireWaiters() } }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters[cafeID]?.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: .ended)
        }
    }

    /// Answers waiters whose deadline passed, until nobody waits.
    private func expireWaiters() async {
        while true {
            let now = ContinuousClock.now
            let (expired, next) = state.withLock { state -> ([Waiter], ContinuousClock.Instant?) in
                if state.waiters.isEmpty {
                    state.timerRunning = false
                    state.earliestDeadline = nil
                    return ([], nil)
                }
                // Nothing is due yet: no need to look through (and copy) every waiter.
                if let earliest = state.earliestDeadline, now < earliest { return ([], earliest) }
                var expired: [Waiter] = []
                var next: ContinuousClock.Instant?
                for (cafeID, waiting) in state.waiters {
                    for (id, waiter) in waiting {
                        if waiter.deadline <= now {
                            expired.append(waiter)
                            state.waiters[cafeID]?.removeValue(forKey: id)
                        } else {
                            next = min(next ?? waiter.deadline, waiter.deadline)
                        }
                    }
                    if state.waiters[cafeID]?.isEmpty == true { state.waiters.removeValue(forKey: cafeID) }
                }
                if next == nil { state.timerRunning = false }
                state.earliestDeadline = next
                return (expired, next)
            }
            for waiter in expired { waiter.continuation.resume(returning: .ended) }
            guard let next else { return }
            // A waiter that arrives meanwhile with an earlier deadline is answered at most
            // `deadlineSlack` late.
            try? await Task.sleep(until: min(next, .now + deadlineSlack), clock: .continuous)
        }
    }
}
