import CanteenCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock on a data folder (`canteen.lock`, `flock`): every server on the folder holds it
/// shared while it runs; `canteen db restore` holds it alone, so it refuses while a server runs
/// and no server starts while it replaces the database. The kernel lets go of it when the
/// process ends, however it ends.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name inside the data folder.
    public static let fileName = "canteen.lock"
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The lock a server holds while it runs on `directory`; fails while a restore runs there.
    public static func server(directory: URL) throws -> DataDirectoryLock {
        try take(directory, LOCK_SH) {
            "a restore is putting a database into \(directory.path) right now; start the server once it is done"
        }
    }

    /// The lock a restore holds; fails while any server runs on `directory`.
    public static func exclusive(directory: URL) throws -> DataDirectoryLock {
        try take(directory, LOCK_EX) {
            "a server is running on \(directory.path): stop it first (systemctl stop canteen)"
        }
    }

    private static func take(_ directory: URL, _ operation: Int32, busy: () -> String) throws -> DataDirectoryLock {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(fileName).path
        // Readable by all: a lock file made by root (a restore) must not shut out the service's user.
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Self.failure("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, operation | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { throw Self.failure(busy()) }
            throw Self.failure("cannot lock \(path): \(String(cString: strerror(failure)))")
        }
        return DataDirectoryLock(descriptor: descriptor)
    }

    /// `database_unavailable`: the folder is busy, or cannot be locked.
    static func failure(_ message: String) -> CanteenError {
        CanteenError(.unavailable, code: .databaseUnavailable, message: message)
    }

    deinit {
        close(descriptor)
    }
}
