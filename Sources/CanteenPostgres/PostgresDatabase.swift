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
    private let readiness = MigrationGate()
    /// The key stored in the database, read once migrated.
    private let storedKey = Mutex<[UInt8]?>(nil)
    let reachable = Atomic<Bool>(true)
    private let started = Atomic<Bool>(false)
    /// Calls in flight, to be answered 503 at once when the listener loses the database (a
    /// query sent as a connection dies may otherwise wait for its deadline).
    let inFlight = Mutex<(next: UInt64, abandon: [UInt64: @Sendable () -> Void])>((0, [:]))
    /// The stores that follow the feed after every `tickets` notification.
    let followers: TicketFollowers
    /// This server's batches, expected on the listener so that their notifications need no read.
    let ownCommits: OwnCommits

    /// The channel every change is announced on; the payload names the topic (`tickets`, `tokens`, `cafes`).
    static let channel = "canteen_changes"

    public init(
        url: PostgresURL, maximumConnections: Int = 20, leaseTimeout: Duration = .seconds(3),
        operationTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "canteen.postgres")
    ) {
        self.url = url
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        self.operationTimeout = operationTimeout
        let followers = TicketFollowers()
        self.followers = followers
        ownCommits = OwnCommits(caughtUp: { followers.caughtUp($0) }, missed: { followers.hint() })
        // The pool's own chatter (a lease asked for while `run()` is starting) stays out of the
        // log; failures reach it through the stores' errors and the listener's messages.
        var poolLogger = logger
        poolLogger.logLevel = .error
        client = PostgresClient(
            configuration: url.clientConfiguration(maximumConnections: maximumConnections),
            backgroundLogger: poolLogger)
    }

    // MARK: - Running

    /// Runs the pool, migrates, then keeps the `LISTEN` connection until cancelled or shut down.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw CanteenError(
                .internal, code: .internalError, message: "the database \(url) was run twice; open it again")
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
            group.addTask { await self.followers.run() }
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

    // MARK: - Connections

    /// Runs `body` on a pooled connection (autocommit), within `operationTimeout`, or without a
    /// deadline when `unbounded` (work that may take long, such as a copy).
    func withConnection<T: Sendable>(
        unbounded: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
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
        async throws -> T
    {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnection { connection in
                    // One statement after another: each answer resumes the transaction on the
                    // thread that read it (`ConnectionLoopExecutor`).
                    try await withTaskExecutorPreference(ConnectionLoopExecutor(connection.eventLoop)) {
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
                }
            } catch  where attempt < 3 && DatabaseFailure.isRetryable(error) {
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
    private func leased<T: Sendable>(
        timeout operationTimeout: Duration?,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
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
                logger.warning(
                    "a database call did not finish within \(operationTimeout); answering 503 and leaving it")
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
