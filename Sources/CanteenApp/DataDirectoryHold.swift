import CanteenStore
import ServiceLifecycle

/// Holds a server's lock on its SQLite data folder for as long as the server runs (added first,
/// so it is let go last, after the database closed): `canteen db restore` refuses meanwhile.
struct DataDirectoryHold: Service {
    let lock: DataDirectoryLock

    func run() async throws {
        try? await gracefulShutdown()
        withExtendedLifetime(lock) {}
    }
}
