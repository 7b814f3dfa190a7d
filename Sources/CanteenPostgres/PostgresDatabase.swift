import CanteenCore
import CanteenPersistence
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The Canteen database on PostgreSQL: a `PostgresClient` pool, the schema's migrations and the
/// `LISTEN` connection that tells every server of the others' changes.
///
/// It is a `Service`: `run()` runs the pool, migrates (under an advisory lock, so servers
/// starting together migrate once), then listens until shutdown. Store calls made before the
/// migration finished wait for it. While the server cannot be reached they fail at once with
/// `database_unavailable` (503), and a call still waiting for a connection after
/// `leaseTimeout`, or not done after `operationTimeout`, gives up the same way; the pool and the
/// listener reconnect by themselves.
public final class PostgresDatabase: Service, Sendable {
    public let url: PostgresURL
    /// What the stores' caches follow: `LISTEN` notifications of every server's changes.
    public let changes = StoreChanges()
    let client: PostgresClient
    let logger: Logger
    private let leaseTimeout: Duration
    private let operationTimeout: Duration
    private let readiness = Readiness()
    /// The key stored in the database, read once migrated.
    private let storedKey = Mutex<[UInt8]?>(nil)
    private let reachable = Atomic<Bool>(true)
    private let started = Atomic<Bool>(false)
    /// Calls in flight, to be answered 503 at once when the listener loses the database (a
    /// query sent as a connection dies may otherwise wait for its deadline).
    private let inFlight = Mutex<(next: UInt64, abandon: [UInt64: @Sendable () -> Void])>((0, [:]))
    private let ticketHandlers = Mutex<[@Sendable () async -> Void]>([])
    /// Hints waiting for the handlers: at most one (a burst of notifications is one re-read).
    private let ticketHints = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// The channel every change is announced on; the payload names the topic (`tickets`, `tokens`, `cafes`).
    static let channel = "canteen_changes"

    public init(url: PostgresURL, maximumConnections: Int = 20, leaseTimeout: Duration = .seconds(3),
                operationTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "canteen.postgres")) {
        self.url = url
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        self.operationTimeout = operationTimeout
        // The pool's own chatter (a lease asked for while `run()` is starting) stays out of the
        // log; failures reach it through the stores' errors and the listener's messages.
        var poolLogger = logger
        poolLogger.logLevel = .error
        client = PostgresClient(configuration: url.clientConfiguration(maximumConnections: maximumConnections),
                                backgroundLogger: poolLogger)
    }

    // MARK: - Running

    /// Runs the pool, migrates, then keeps the `LISTEN` connection until cancelled or shut down.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw CanteenError(.internal, code: .internalError, message: "the database \(url) was run twice; open it again")
        }
        // Made once: a TLS context loads the system's trust roots.
        let listenerConfiguration = try url.connectionConfiguration()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            do {
                let key = try await Migrations.run(on: self)
                storedKey.withLock { $0 = key }
                readiness.open()
            } catch {
                let translated = DatabaseFailure.translate(error)
                logger.error("migrating \(url) failed: \(DatabaseFailure.describe(error))")
                readiness.fail(translated)
                throw translated
            }
            group.addTask {
                for await _ in self.ticketHints.stream {
                    for handler in self.ticketHandlers.withLock({ $0 }) { await handler() }
                }
            }
            await cancelWhenGracefulShutdown { await self.listen(listenerConfiguration) }
            group.cancelAll()
        }
    }

    /// The card and coupon key stored in the database (the same for every server): known once
    /// the database is migrated; `database_unavailable` before.
    func storedServerKey() throws -> [UInt8] {
        guard let key = storedKey.withLock({ $0 }) else { throw DatabaseFailure.unavailable }
        return key
    }

    /// Called for every hint that tickets changed on some server, and after every reconnection
    /// of the listener (notifications sent meanwhile are lost: re-read from the cursor).
    func onTicketHint(_ action: @escaping @Sendable () async -> Void) {
        ticketHandlers.withLock { $0.append(action) }
    }

    // MARK: - Listening

    /// Holds a dedicated connection listening on `channel`, reconnecting after every loss.
    private func listen(_ configuration: PostgresConnection.Configuration) async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                do {
                    try await consumeNotifications(on: connection, attempt: &attempt)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { break }
                if reachable.exchange(false, ordering: .acquiringAndReleasing) {
                    logger.warning("lost the database (\(url)); answering 503 until it is back: \(DatabaseFailure.describe(error))")
                }
                for abandon in inFlight.withLock({ $0.abandon.values }) { abandon() }
            }
            changes.setFollowing(false)
            if Task.isCancelled { break }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(1000, 50 * (1 << min(attempt, 5)))))
        }
        changes.setFollowing(false)
    }

    /// Listens on `connection` until it fails: every notification is a hint, never the truth.
    private func consumeNotifications(on connection: PostgresConnection, attempt: inout Int) async throws {
                try await connection.listen(on: Self.channel) { notifications in
                    attempt = 0
                    if !reachable.exchange(true, ordering: .acquiringAndReleasing) {
                        logger.notice("the database is reachable again: \(url)")
                    }
                    // Listening from here on: what happened before is re-read once.
                    changes.setFollowing(true)
                    hintTickets()
                    for try await notification in notifications {
                        switch notification.payload {
                        case "tickets": hintTickets()
                        case "tokens": changes.changed(.tokens)
                        case "cafes": changes.changed(.cafes)
                        default: logger.debug("unknown change notification '\(notification.payload)'")
                        }
                    }
                }
    }

    private func hintTickets() {
        ticketHints.continuation.yield()
    }

    // MARK: - Connections

    /// Runs `body` on a pooled connection (autocommit), within `operationTimeout`, or without a
    /// deadline when `unbounded` (work that may take long, such as a copy).
    func withConnection<T: Sendable>(unbounded: Bool = false,
                                     _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await readiness.wait()
        guard reachable.load(ordering: .relaxed) else { throw DatabaseFailure.unavailable }
        do {
            return try await leased(timeout: unbounded ? nil : operationTimeout, body)
        } catch {
            throw DatabaseFailure.translate(error)
        }
    }

    /// Runs `body` in a transaction (READ COMMITTED), committing when it returns and rolling
    /// back when it throws; a serialization failure or deadlock runs it again (up to 3 times).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnection { connection in
                    try await connection.query("BEGIN", logger: self.logger)
                    let value: T
                    do {
                        value = try await body(connection)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: self.logger)
                        throw error
                    }
                    try await connection.query("COMMIT", logger: self.logger)
                    return value
                }
            } catch where attempt < 3 && DatabaseFailure.isRetryable(error) {
                logger.debug("retrying a transaction after \(String(describing: DatabaseFailure.sqlState(of: error)))")
                continue
            }
        }
    }

    /// `body` on a leased connection, under two deadlines: a lease not granted within
    /// `leaseTimeout` (the pool may be waiting for a server that is gone), or a call not done
    /// within `operationTimeout` (nil: none), is answered `database_unavailable`.
    ///
    /// The call is raced, not awaited: a query sent on a connection that closed at that very
    /// moment (PostgreSQL restarting) can wait forever, and a task group would wait with it. The
    /// abandoned call finishes or fails on its own; its transaction, never committed by us after
    /// the deadline, is rolled back by the server when the connection goes. An order it held is
    /// safe: the client retries with its Idempotency-Key.
    private func leased<T: Sendable>(timeout operationTimeout: Duration?,
                                     _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let race = DeadlineRace<T>()
        let work = Task {
            do {
                let value = try await self.client.withConnection { connection in
                    race.granted.store(true, ordering: .releasing)
                    return try await body(connection)
                }
                race.finish(.success(value))
            } catch {
                race.finish(.failure(error))
            }
        }
        let leaseTimeout = leaseTimeout
        let logger = logger
        let timer = Task {
            try await Task.sleep(for: leaseTimeout)
            if !race.granted.load(ordering: .acquiring) {
                if race.finish(.failure(DatabaseFailure.unavailable)) {
                    logger.warning("no database connection within \(leaseTimeout); answering 503")
                    work.cancel()
                }
                return
            }
            guard let operationTimeout, operationTimeout > leaseTimeout else { return }
            try await Task.sleep(for: operationTimeout - leaseTimeout)
            if race.finish(.failure(DatabaseFailure.unavailable)) {
                logger.warning("a database call did not finish within \(operationTimeout); answering 503 and leaving it")
                work.cancel()
            }
        }
        let registration = inFlight.withLock { calls -> UInt64 in
            calls.next &+= 1
            calls.abandon[calls.next] = { if race.finish(.failure(DatabaseFailure.unavailable)) { work.cancel() } }
            return calls.next
        }
        defer {
            timer.cancel()
            _ = inFlight.withLock { $0.abandon.removeValue(forKey: registration) }
        }
        return try await withTaskCancellationHandler {
            try await race.outcome()
        } onCancel: {
            work.cancel()
        }
    }
}

/// The first of a database call's outcome and its deadlines.
private final class DeadlineRace<T: Sendable>: Sendable {
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

/// Opens once the schema is migrated; store calls wait for it (or fail with its error).
private final class Readiness: Sendable {
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
