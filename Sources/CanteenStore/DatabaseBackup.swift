import CanteenCore
import CanteenJSON
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copies of the SQLite database: `canteen db backup` while servers keep taking orders, and
/// `canteen db restore` with every server on the folder stopped.
public enum DatabaseBackup {
    /// How far a copy has come, in database pages.
    public struct Progress: Sendable, Equatable {
        public let copiedPages: Int
        public let totalPages: Int
    }

    /// What a finished backup or restore holds.
    public struct Summary: Sendable, Equatable {
        public let pages: Int
        public let bytes: Int64
        public let orders: Int
        /// Where the database that was replaced was kept (restore only).
        public var previous: URL?
    }

    // MARK: - Backup

    /// Copies `canteen.sqlite` of `directory` to `destination` with SQLite's online backup, from
    /// one read transaction: the copy is the database as of the moment it started (every order
    /// committed, so acknowledged, before then; none after), however many orders servers commit
    /// meanwhile, and the servers are never stopped or slowed beyond sharing the disk. The copy
    /// is written beside `destination`, must pass `PRAGMA integrity_check`, and only then takes
    /// its name. `destination` must not exist.
    public static func backup(
        directory: URL, to destination: URL, pagesPerStep: Int32 = 256,
        progress: @escaping (Progress) -> Void = { _ in }
    ) throws -> Summary {
        let source = directory.appendingPathComponent(AppDatabase.fileName)
        guard AppDatabase.exists(in: directory) else {
            throw failure("there is no database in \(directory.path) (no \(AppDatabase.fileName))")
        }
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw failure("\(destination.path) exists already: remove it or name another file")
        }
        let partial = URL(fileURLWithPath: destination.path + ".partial")
        try? FileManager.default.removeItem(at: partial)
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let reader = try DatabaseQueue(path: source.path, configuration: configuration)
            defer { try? reader.close() }
            let copy = try DatabaseQueue(path: partial.path)
            try reader.backup(to: copy, pagesPerStep: pagesPerStep) { step in
                progress(Progress(copiedPages: step.completedPageCount, totalPages: step.totalPageCount))
            }
            let summary = try check(copy, named: destination.path)
            try copy.close()
            try sync(partial)
            try FileManager.default.moveItem(at: partial, to: destination)
            try sync(destination.deletingLastPathComponent())
            return summary
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw described(error, source.path)
        }
    }

    // MARK: - Restore

    /// Puts the database copy `file` into `directory` as its `canteen.sqlite`, refusing while any
    /// server runs on the folder (and holding it so that none starts meanwhile). The copy must
    /// pass `PRAGMA integrity_check` and be a Canteen database this version knows (its migrations,
    /// no newer ones). The database it replaces is checkpointed and kept beside it as
    /// `canteen.sqlite.before-restore-TIME`; run as root, the new file gets the folder's owner.
    public static func restore(from file: URL, into directory: URL, now: Date = Date()) throws -> Summary {
        guard FileManager.default.fileExists(atPath: file.path) else { throw failure("there is no file \(file.path)") }
        let lock = try DataDirectoryLock.exclusive(directory: directory)
        defer { withExtendedLifetime(lock) {} }
        let target = directory.appendingPathComponent(AppDatabase.fileName)
        let incoming = directory.appendingPathComponent(AppDatabase.fileName + ".restoring")
        try? FileManager.default.removeItem(at: incoming)
        do {
            let source = try DatabaseQueue(path: file.path, configuration: readOnly())
            defer { try? source.close() }
            try source.read { db in
                guard try db.tableExists("grdb_migrations") else {
                    throw failure("\(file.path) is not a Canteen database (it has no migrations table)")
                }
                let unknown = try AppDatabase.migrator.appliedIdentifiers(db).subtracting(
                    AppDatabase.migrator.migrations)
                guard unknown.isEmpty else {
                    throw failure(
                        "\(file.path) was made by a newer Canteen (migrations \(unknown.sorted())); "
                            + "install that version to restore it")
                }
            }
            let copy = try DatabaseQueue(path: incoming.path)
            try source.backup(to: copy)
            var summary = try check(copy, named: file.path)
            try copy.close()
            // What `canteen serve` checks before serving a file (stored preferences parse): a copy it
            // would refuse to start on is refused now, the database in place untouched.
            do {
                try AppDatabase.check(path: incoming.path)
            } catch let error as CanteenError where error.code == .databaseUnreadable {
                throw failure(error.message.replacingOccurrences(of: incoming.path, with: file.path))
            }
            try sync(incoming)
            if FileManager.default.fileExists(atPath: target.path) {
                summary.previous = try setAside(target, now: now)
            }
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: target.path + suffix)
            }
            try FileManager.default.moveItem(at: incoming, to: target)
            try sync(directory)
            giveToOwner(of: directory, target)
            return summary
        } catch {
            try? FileManager.default.removeItem(at: incoming)
            throw described(error, file.path)
        }
    }

    /// Checkpoints the database being replaced (its last commits may sit in its WAL) and renames it.
    private static func setAside(_ target: URL, now: Date) throws -> URL {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let old = try DatabaseQueue(path: target.path, configuration: configuration)
        try old.writeWithoutTransaction { db in
            _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try old.close()
        let stamp = RFC3339.utcSeconds(now).replacingOccurrences(of: ":", with: "")
        let kept = URL(fileURLWithPath: target.path + ".before-restore-" + stamp)
        try FileManager.default.moveItem(at: target, to: kept)
        return kept
    }

    // MARK: - Checks

    /// `PRAGMA integrity_check` must say ok; the pages, size and orders of the copy.
    static func check(_ copy: DatabaseQueue, named name: String) throws -> Summary {
        try copy.read { db in
            let problems = try String.fetchAll(db, sql: "PRAGMA integrity_check(5)")
            guard problems == ["ok"] else {
                throw failure("the copy of \(name) fails SQLite's integrity check: \(problems.joined(separator: "; "))")
            }
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let orders =
                try db.tableExists("customerOrder")
                ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customerOrder") ?? 0 : 0
            return Summary(pages: pages, bytes: Int64(pages) * Int64(size), orders: orders)
        }
    }

    private static func readOnly() -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// Flushes a file's (or folder's) contents to disk.
    private static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw failure("cannot flush \(url.path) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// Run as root, the restored file goes to the folder's owner (the service's user).
    private static func giveToOwner(of directory: URL, _ file: URL) {
        guard getuid() == 0 else { return }
        var folder = stat()
        guard stat(directory.path, &folder) == 0, folder.st_uid != 0 else { return }
        _ = chown(file.path, folder.st_uid, folder.st_gid)
    }

    static func failure(_ message: String) -> CanteenError {
        CanteenError(.invalid, code: .databaseUnreadable, message: message)
    }

    private static func described(_ error: any Error, _ path: String) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        return failure("\(path): \(error.message ?? "\(error.resultCode)")")
    }
}
