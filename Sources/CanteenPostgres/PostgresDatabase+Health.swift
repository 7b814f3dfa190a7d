import CanteenCore
import PostgresNIO

/// The PostgreSQL database's readiness: migrated, and a pooled connection answers `SELECT 1`
/// within the pool's deadlines.
public struct PostgresHealth: DatabaseHealth {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public var engine: String { "postgresql" }

    public func problem() async -> String? {
        do {
            try await database.withConnection { connection in
                _ = try await connection.query("SELECT 1", logger: database.logger)
            }
            return nil
        } catch let error as CanteenError {
            return "the PostgreSQL database at \(database.url) does not answer: \(error.message)"
        } catch {
            return "the PostgreSQL database at \(database.url) does not answer: \(DatabaseFailure.describe(error))"
        }
    }
}
