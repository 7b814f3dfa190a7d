import CanteenCore
import Foundation
import Synchronization

/// What `GET /readyz` answers: ready once the database is migrated and the cafés are loaded, and
/// while the database answers and can be written; else the reason.
///
/// One check runs at a time: probes arriving while it runs (several load balancers, a slow write
/// lock) wait for that same check instead of piling more work onto the database, each for at
/// most `timeout`; a check that takes longer is answered as not ready (it finishes on its own).
public final class Readiness: Sendable {
    /// A readiness answer.
    public enum Verdict: Sendable, Equatable {
        case ready(cafes: Int)
        case notReady(String)
    }

    private let cafes: any CafeRepository
    private let database: (any DatabaseHealth)?
    private let timeout: Duration
    /// The check running now, which every probe arriving meanwhile waits for.
    private let running = Mutex<Task<Verdict, Never>?>(nil)

    /// `database` nil: only the cafés are asked (stores in tests without a health check).
    public init(cafes: any CafeRepository, database: (any DatabaseHealth)?, timeout: Duration = .seconds(3)) {
        self.cafes = cafes
        self.database = database
        self.timeout = timeout
    }

    /// The engine's name, for the answer.
    public var engine: String? { database?.engine }

    /// Checks the database and the cafés now.
    public func verdict() async -> Verdict {
        let work = running.withLock { running in
            if let check = running { return check }
            let check = Task { [self] in
                defer { self.running.withLock { $0 = nil } }
                return await self.check()
            }
            running = check
            return check
        }
        // Raced, not awaited: a stuck check must not hold the probe's answer.
        let timeout = timeout
        let engine = database?.engine ?? "database"
        return await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let timer = Task {
                try await Task.sleep(for: timeout)
                answer.give(.notReady("the \(engine) database did not answer within \(timeout)"))
            }
            Task {
                let verdict = await work.value
                timer.cancel()
                answer.give(verdict)
            }
        }
    }

    private func check() async -> Verdict {
        if let problem = await database?.problem() { return .notReady(problem) }
        do {
            let count = try await cafes.cafes().count
            guard count > 0 else {
                return .notReady("no café is configured yet: import café files with `canteen menus import DIR`")
            }
            return .ready(cafes: count)
        } catch let error as CanteenError {
            return .notReady("the cafés cannot be read: \(error.message)")
        } catch {
            return .notReady("the cafés cannot be read: \(error)")
        }
    }
}

/// Resumes a waiting probe with the first verdict given; later ones are dropped.
private final class FirstAnswer: Sendable {
    private let waiter: Mutex<CheckedContinuation<Readiness.Verdict, Never>?>

    init(_ continuation: CheckedContinuation<Readiness.Verdict, Never>) {
        waiter = Mutex(continuation)
    }

    func give(_ verdict: Readiness.Verdict) {
        waiter.withLock { $0.take() }?.resume(returning: verdict)
    }
}
