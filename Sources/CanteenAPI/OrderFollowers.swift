import CanteenCore
import Foundation
import Synchronization

/// Wakes the clients following one order (a long-poll, an event stream) the moment one of its
/// events is known, handing them the events themselves: a waiter needs no database read to
/// answer.
///
/// A client starts following before it reads the order, so that an event committed between
/// its read and its wait is kept for it rather than missed. Waiters are suspended
/// continuations; deadlines are kept by one timer task that runs only while someone waits.
final class OrderFollowers: Sendable {
    private struct Follower {
        let orderID: String
        /// Events published since the follower last took them.
        var events: [OrderEvent] = []
        var waiter: CheckedContinuation<Void, Never>?
        var deadline: ContinuousClock.Instant?
    }

    private struct State {
        var followers: [UInt64: Follower] = [:]
        var byOrder: [String: Set<UInt64>] = [:]
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

    /// Starts keeping the events of `orderID` for a new follower; returns its id.
    func follow(orderID: String) -> UInt64 {
        state.withLock { state in
            state.nextID &+= 1
            state.followers[state.nextID] = Follower(orderID: orderID)
            state.byOrder[orderID, default: []].insert(state.nextID)
            return state.nextID
        }
    }

    /// Stops following (a waiting `next` returns nil).
    func stop(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let follower = state.followers.removeValue(forKey: id) else { return nil }
            state.byOrder[follower.orderID]?.remove(id)
            if state.byOrder[follower.orderID]?.isEmpty == true { state.byOrder.removeValue(forKey: follower.orderID) }
            return follower.waiter
        }
        waiter?.resume()
    }

    /// Hands committed events to the followers of their orders and wakes the waiting ones.
    func publish(_ events: [OrderEvent]) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.byOrder.isEmpty else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            for event in events {
                for id in state.byOrder[event.orderID] ?? [] {
                    state.followers[id]?.events.append(event)
                    if let waiter = state.followers[id]?.waiter {
                        state.followers[id]?.waiter = nil
                        woken.append(waiter)
                    }
                }
            }
            return woken
        }
        for waiter in woken { waiter.resume() }
    }

    /// The events published for the follower since it last asked, waiting for one until
    /// `deadline`: empty at the deadline or on cancellation, nil once it stopped or the server
    /// is shutting down.
    func next(_ id: UInt64, until deadline: ContinuousClock.Instant) async -> [OrderEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                var startTimer = false
                let parked = state.withLock { state -> Bool in
                    guard !state.released, var follower = state.followers[id], follower.events.isEmpty,
                        !Task.isCancelled, deadline > .now
                    else { return false }
                    follower.waiter = continuation
                    follower.deadline = deadline
                    state.followers[id] = follower
                    if !state.timerRunning {
                        state.timerRunning = true
                        startTimer = true
                    }
                    return true
                }
                if !parked { continuation.resume() }
                if startTimer { Task { await self.expireWaiters() } }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.followers[id]?.waiter = nil }
                return state.followers[id]?.waiter
            }
            waiter?.resume()
        }
        return state.withLock { state -> [OrderEvent]? in
            guard !state.released, var follower = state.followers[id] else { return nil }
            let events = follower.events
            follower.events = []
            follower.deadline = nil
            state.followers[id] = follower
            return events
        }
    }

    /// Wakes every waiter (on shutdown): they answer with what they have; later waits return nil.
    func releaseAll() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            var woken: [CheckedContinuation<Void, Never>] = []
            for id in state.followers.keys {
                if let waiter = state.followers[id]?.waiter { woken.append(waiter) }
                state.followers[id]?.waiter = nil
            }
            return woken
        }
        for waiter in woken { waiter.resume() }
    }

    /// Clients following an order right now.
    var count: Int { state.withLock { $0.followers.count } }

    /// Answers waiters whose deadline passed, until nobody waits.
    private func expireWaiters() async {
        while true {
            let now = ContinuousClock.now
            let (expired, next) = state.withLock {
                state -> ([CheckedContinuation<Void, Never>], ContinuousClock.Instant?) in
                var expired: [CheckedContinuation<Void, Never>] = []
                var next: ContinuousClock.Instant?
                for (id, follower) in state.followers {
                    guard let waiter = follower.waiter, let deadline = follower.deadline else { continue }
                    if deadline <= now {
                        expired.append(waiter)
                        state.followers[id]?.waiter = nil
                    } else {
                        next = min(next ?? deadline, deadline)
                    }
                }
                if next == nil { state.timerRunning = false }
                return (expired, next)
            }
            for waiter in expired { waiter.resume() }
            guard let next else { return }
            try? await Task.sleep(until: min(next, .now + deadlineSlack), clock: .continuous)
        }
    }
}

/// One client following one order, from before it reads the order until it is done.
public final class OrderFollower: Sendable {
    private let id: UInt64
    private let followers: OrderFollowers

    init(orderID: String, followers: OrderFollowers) {
        self.followers = followers
        id = followers.follow(orderID: orderID)
    }

    deinit { followers.stop(id) }

    /// Stops following: a waiting `next` returns nil, and so does every later one.
    public func stop() { followers.stop(id) }

    /// The order's events committed since the last call, waiting for one until `deadline`:
    /// empty at the deadline, nil when the server is shutting down.
    public func next(until deadline: ContinuousClock.Instant) async -> [OrderEvent]? {
        await followers.next(id, until: deadline)
    }
}
