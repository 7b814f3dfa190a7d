import CanteenApp
import CanteenCore
import CanteenPersistence
import CanteenPostgres
import CanteenStore
import Crypto
import Foundation
import GRDB
import Logging
import Testing

/// The engines the store suite runs on: SQLite always, PostgreSQL when
/// `CANTEEN_TEST_DATABASE_URL` names a server the tests may create databases on (`make
/// test-postgres` starts a private one). Each test gets a database of its own.
public enum StoreBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The server for PostgreSQL tests, from the environment.
    public static var postgresURL: PostgresURL? {
        ProcessInfo.processInfo.environment["CANTEEN_TEST_DATABASE_URL"].flatMap { try? PostgresURL($0) }
    }

    /// SQLite, and PostgreSQL when a server is configured.
    public static var available: [StoreBackend] {
        postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// Only PostgreSQL (empty without a server).
    public static var postgresOnly: [StoreBackend] { postgresURL == nil ? [] : [.postgres] }

    public var testDescription: String { rawValue }

    /// Warnings and errors only: every test migrates a database of its own.
    public static let quietLogger: Logger = {
        var logger = Logger(label: "canteen.postgres.test")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` on fresh, empty stores of this engine (on disk for SQLite when `onDisk`).
    public func withStores<T: Sendable>(
        clock: TestClock, onDisk: Bool = false,
        _ body: (TestStores) async throws -> T
    ) async throws -> T {
        try await withServers(1, clock: clock, onDisk: onDisk) { try await body($0[0]) }
    }

    /// Runs `body` with `count` independent store sets on one fresh database, as `count` servers
    /// (or processes) would have: SQLite on one file, PostgreSQL on one database.
    public func withServers<T: Sendable>(
        _ count: Int, clock: TestClock, onDisk: Bool = false,
        _ body: ([TestStores]) async throws -> T
    ) async throws -> T {
        switch self {
        case .sqlite:
            if count == 1 && !onDisk {
                return try await body([
                    TestStores(
                        stores: try CanteenStores.open(dataDirectory: nil, clock: clock.closure),
                        backend: self)
                ])
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "canteen-store-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let servers = try (0..<count).map { _ in
                TestStores(
                    stores: try CanteenStores.open(dataDirectory: directory, clock: clock.closure), backend: self)
            }
            defer { for server in servers { try? server.stores.sqliteDatabase?.close() } }
            return try await body(servers)
        case .postgres:
            guard let admin = Self.postgresURL else { throw TestDatabaseMissing() }
            let name =
                "canteen_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
            try await PostgresDatabase.createDatabase(String(name), on: admin)
            // No fixed key: the servers share the key stored in the database, as real ones do.
            let servers = (0..<count).map { _ in
                TestStores(
                    stores: CanteenStores.open(
                        postgres: admin.with(database: String(name)), cardKey: nil,
                        maximumConnections: 8, logger: Self.quietLogger, clock: clock.closure),
                    backend: self)
            }
            do {
                let result = try await Self.running(servers[...], body: { try await body(servers) })
                try await PostgresDatabase.dropDatabase(String(name), on: admin)
                return result
            } catch {
                try? await PostgresDatabase.dropDatabase(String(name), on: admin)
                throw error
            }
        }
    }

    /// Runs every server's database service around `body`.
    private static func running<T: Sendable>(
        _ servers: ArraySlice<TestStores>,
        body: () async throws -> T
    ) async throws -> T {
        guard let first = servers.first else { return try await body() }
        return try await first.stores.withDatabase { stores in
            // As a server does before it serves: wait until the database is migrated (the server
            // key, read without a query, is known from then on).
            _ = try await stores.cafes.cafes()
            return try await running(servers.dropFirst(), body: body)
        }
    }
}

/// `CANTEEN_TEST_DATABASE_URL` is not set.
public struct TestDatabaseMissing: Error, CustomStringConvertible {
    public var description: String { "CANTEEN_TEST_DATABASE_URL names no PostgreSQL server" }
}

/// One server's stores in a store test, with raw SQL for what the repositories do not offer
/// (corrupting a row, counting). Table and column names are the same on both engines.
public struct TestStores: Sendable {
    public let stores: CanteenStores
    public let backend: StoreBackend

    /// Runs `sql` as it is.
    public func execute(_ sql: String) async throws {
        switch stores.engine {
        case .sqlite(let database): try await database.writer.write { try $0.execute(sql: sql) }
        case .postgres(let database): try await database.execute(unsafeSQL: sql)
        }
    }

    /// The integer `sql` selects (first column of the first row).
    public func integer(_ sql: String) async throws -> Int64? {
        switch stores.engine {
        case .sqlite(let database): try await database.writer.read { try Int64.fetchOne($0, sql: sql) }
        case .postgres(let database): try await database.integer(unsafeSQL: sql)
        }
    }

    /// How many rows `table` holds.
    public func count(_ table: String) async throws -> Int {
        Int(try await integer("SELECT COUNT(*) FROM \(table)") ?? 0)
    }

    /// A card store on this database with another server key.
    public func cardStore(key: SymmetricKey) -> any CardRepository {
        switch stores.engine {
        case .sqlite(let database): CardStore(database: database, key: key)
        case .postgres(let database):
            PostgresCardStore(database: database, key: PostgresServerKey(database: database, fixed: key))
        }
    }

    /// The SQLite database of a SQLite backend (for SQLite-only assertions).
    public var sqlite: AppDatabase? { stores.sqliteDatabase }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds` (then fails the
/// test with `comment`). For effects that cross processes or servers: never a timing assertion.
public func eventually(
    within seconds: Double = 60, _ comment: Comment,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record(comment, sourceLocation: sourceLocation)
}

/// Runs the change watchers of SQLite servers around `body`, once each follows changes
/// (PostgreSQL servers follow them from their listener already).
public func withChangeWatchers<T: Sendable>(_ servers: [TestStores], _ body: () async throws -> T) async throws -> T {
    let databases = servers.compactMap(\.sqlite)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        for database in databases {
            group.addTask { try await StoreChangeWatcher(database: database).run() }
        }
        defer { group.cancelAll() }
        for server in servers {
            let changes = server.sqlite?.changes ?? server.stores.postgresDatabase?.changes
            try await eventually("the server's caches never started following changes") { changes?.isFollowing ?? true }
        }
        return try await body()
    }
}
