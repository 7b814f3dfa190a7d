import CanteenCore
import Foundation
import GRDB

/// The SQLite implementation of `PersonalDataRepository`: one person's rows across the tables
/// that name them, read in one snapshot and erased in one transaction.
public final class PersonalDataStore: PersonalDataRepository {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func personalData(userID: String) async throws -> PersonalData {
        try await database.writer.read { db in
            let preferences = try PreferencesStore.fetchDocument(db, userID: userID)
            let cards = try Row.fetchAll(
                db,
                sql: """
                    SELECT identifierHash, technology, displayName, createdAt FROM card WHERE userId = ? ORDER BY createdAt
                    """, arguments: [userID]
            ).map {
                StoredCard(
                    identifierHash: $0["identifierHash"], technology: $0["technology"],
                    displayName: $0["displayName"], createdAt: $0["createdAt"])
            }
            let enrolments = try Row.fetchAll(
                db,
                sql: """
                    SELECT displayName, expiresAt, usedAt FROM cardEnrolment WHERE userId = ? ORDER BY expiresAt
                    """, arguments: [userID]
            ).map {
                StoredEnrolment(displayName: $0["displayName"], expiresAt: $0["expiresAt"], usedAt: $0["usedAt"])
            }
            let sessions = try UserSessionRecord.filter(Column("userId") == userID).order(Column("createdAt"))
                .fetchAllNamingRows(db).map { try $0.session() }
            let tokens = try AccessTokenRecord.filter(Column("userId") == userID).order(Column("createdAt"))
                .fetchAllNamingRows(db).map { try $0.token() }
            return PersonalData(
                userID: userID, preferences: preferences.version == 0 ? nil : preferences, cards: cards,
                enrolments: enrolments, sessions: sessions, tokens: tokens,
                orderIDs: try Self.orderIDs(db, userID: userID, limit: nil))
        }
    }

    public func recentOrderIDs(userID: String, limit: Int) async throws -> [String] {
        try await database.writer.read { db in try Self.orderIDs(db, userID: userID, limit: limit) }
    }

    public func erase(userID: String) async throws -> Erasure {
        try await database.writer.write { db in
            let arguments: StatementArguments = [userID]
            func run(_ sql: String) throws -> Int {
                try db.execute(sql: sql, arguments: arguments)
                return db.changesCount
            }
            // The order's idempotency records go first: they name the token or session that placed it.
            for table in ["idempotencyRecord", "idempotencyKey"] {
                _ = try run("DELETE FROM \(table) WHERE orderId IN (SELECT id FROM customerOrder WHERE userId = ?)")
            }
            let unlinked = try run(
                """
                UPDATE customerOrder SET customerName = '', tokenId = CASE
                    WHEN tokenId LIKE 'ses\\_%' ESCAPE '\\' OR tokenId LIKE 'idp\\_%' ESCAPE '\\'
                        OR tokenId IN (SELECT id FROM accessToken WHERE userId = ?1) THEN NULL ELSE tokenId END,
                    userId = NULL
                WHERE userId = ?1
                """)
            return Erasure(
                preferences: try run("DELETE FROM userPreferences WHERE userId = ?"),
                cards: try run("DELETE FROM card WHERE userId = ?"),
                enrolments: try run("DELETE FROM cardEnrolment WHERE userId = ?"),
                sessions: try run("DELETE FROM userSession WHERE userId = ?"),
                tokens: try run("DELETE FROM accessToken WHERE userId = ?"),
                ordersUnlinked: unlinked)
        }
    }

    static func orderIDs(_ db: Database, userID: String, limit: Int?) throws -> [String] {
        try String.fetchAll(db, sql: orderIDsSQL, arguments: [userID, limit ?? -1])
    }

    /// A person's orders, newest first (index `customerOrder_on_userId_createdAt`).
    static let orderIDsSQL = """
        SELECT id FROM customerOrder WHERE userId = ? ORDER BY createdAt DESC, id DESC LIMIT ?
        """
}
