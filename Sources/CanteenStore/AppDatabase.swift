import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// The Canteen database: owns the GRDB writer and migrates it to the current schema on open.
public final class AppDatabase: Sendable {
    /// The connection (a `DatabasePool` in WAL mode on disk; a queue in memory for tests).
    public let writer: any DatabaseWriter
    /// What the stores' caches follow: changes of any process, read by `StoreChangeWatcher`.
    public let changes = StoreChanges()

    /// Wraps `writer` and runs every pending migration.
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// The database file's name inside the data directory.
    public static let fileName = "canteen.sqlite"

    /// Whether `directory` holds a database (without creating one).
    public static func exists(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(fileName).path)
    }

    /// Opens (creating if needed) `canteen.sqlite` in `directory`, in WAL mode.
    public static func open(directory: URL) throws -> AppDatabase {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(fileName).path
        let pool = try DatabasePool(path: path, configuration: configuration())
        return try AppDatabase(pool)
    }

    /// A private in-memory database going through the real migrations.
    /// No other process can write to it, so its caches follow every change from the start.
    public static func inMemory() throws -> AppDatabase {
        let database = try AppDatabase(DatabaseQueue(configuration: configuration()))
        database.changes.setFollowing(true)
        return database
    }

    /// Connection settings: foreign keys on, a busy timeout for other processes (the CLI),
    /// and `synchronous = FULL` so that a committed order survives power loss.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Savepoint journals (one per order in a group commit) stay in memory, not temp files.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        return configuration
    }
}

extension AppDatabase {
    /// The database file's path; nil in memory.
    public var filePath: String? {
        writer is DatabasePool ? writer.path : nil
    }

    /// Checkpoints and closes the connections (on shutdown).
    public func close() throws {
        if let pool = writer as? DatabasePool {
            try pool.close()
        } else if let queue = writer as? DatabaseQueue {
            try queue.close()
        }
    }
}
