import CanteenCore
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite database's readiness: its folder and files still accept this process's writes
/// (a read-only mount, a file made immutable or handed to another user), and the write lock can
/// be taken (no other process holds the database for longer than the busy timeout).
public struct SQLiteHealth: DatabaseHealth {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public var engine: String { "sqlite" }

    public func problem() async -> String? {
        if let file = database.filePath {
            let directory = (file as NSString).deletingLastPathComponent
            for path in [directory, file, file + "-wal"] where FileManager.default.fileExists(atPath: path) {
                if access(path, W_OK) != 0 {
                    return "the SQLite database is not writable: \(path): \(String(cString: strerror(errno)))"
                }
            }
        }
        do {
            // BEGIN IMMEDIATE takes the write lock (waiting up to the busy timeout), then gives it back.
            try await database.writer.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
        } catch let error as DatabaseError {
            return "the SQLite database cannot be written: \(error.message ?? "\(error.resultCode)")"
        } catch {
            return "the SQLite database cannot be written: \(error)"
        }
        return nil
    }
}
