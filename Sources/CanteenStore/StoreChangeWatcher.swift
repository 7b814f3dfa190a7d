import CanteenCore
import CanteenPersistence
import GRDB
import Logging
import ServiceLifecycle

/// Reads the change counters that triggers bump in every writing process (migration v12) and
/// tells the database's caches which topics moved: a token revoked or a menu changed by
/// `canteen tokens revoke` or a second server on the same data dir is forgotten within one
/// `interval`. Until its first read, and after a failed one, caches read through.
public struct StoreChangeWatcher: Service {
    let database: AppDatabase
    let interval: Duration
    let logger: Logger

    public init(
        database: AppDatabase, interval: Duration = .milliseconds(100),
        logger: Logger = Logger(label: "canteen.changes")
    ) {
        self.database = database
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var known: [String: Int64]?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let versions = try await database.writer.read { db in
                    try Dictionary(
                        uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT topic, version FROM storeChange").map {
                            (row: Row) -> (String, Int64) in (row["topic"], row["version"])
                        })
                }
                if let known {
                    for topic in StoreChanges.Topic.allCases where versions[topic.rawValue] != known[topic.rawValue] {
                        database.changes.changed(topic)
                    }
                } else {
                    database.changes.setFollowing(true)
                }
                known = versions
            } catch {
                if Task.isCancelled { break }
                if known != nil {
                    logger.warning("reading the change counters failed; caches read through until it works: \(error)")
                    database.changes.setFollowing(false)
                }
                known = nil
            }
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        database.changes.setFollowing(false)
    }
}
