import CanteenCore
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `PersonalDataRepository`: the same tables and rules as the
/// SQLite store, read in one transaction and erased in one.
public final class PostgresPersonalDataStore: PersonalDataRepository {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func personalData(userID: String) async throws -> PersonalData {
        try await database.transaction { connection in
            let logger = self.database.logger
            let preferences = try await PostgresPreferencesStore.fetchDocument(
                connection, userID: userID, lock: false,
                logger: logger)
            let cards = try await connection.rows(
                """
                SELECT identifierHash, technology, displayName, createdAt FROM card WHERE userId = \(userID)
                ORDER BY createdAt
                """, logger: logger
            ).map { row in
                let (hash, technology, name, createdAt) = try StoredColumns.decode(
                    row, table: "card", (String, String, String?, Date).self)
                return StoredCard(identifierHash: hash, technology: technology, displayName: name, createdAt: createdAt)
            }
            let enrolments = try await connection.rows(
                """
                SELECT displayName, expiresAt, usedAt FROM cardEnrolment WHERE userId = \(userID) ORDER BY expiresAt
                """, logger: logger
            ).map { row in
                let (name, expiresAt, usedAt) = try StoredColumns.decode(
                    row, table: "cardEnrolment", (String?, Date, Date?).self)
                return StoredEnrolment(displayName: name, expiresAt: expiresAt, usedAt: usedAt)
            }
            let sessions = try await connection.rows(
                """
                SELECT id, secretHash, userId, role, name, email, createdAt, lastSeenAt FROM userSession
                WHERE userId = \(userID) ORDER BY createdAt
                """, logger: logger
            ).map { try PostgresSessionStore.session($0).0 }
            let tokens = try await connection.rows(
                "\(unescaped: PostgresTokenStore.select) WHERE userId = \(userID) ORDER BY createdAt", logger: logger
            )
            .map(PostgresTokenStore.token)
            return PersonalData(
                userID: userID, preferences: preferences.version == 0 ? nil : preferences, cards: cards,
                enrolments: enrolments, sessions: sessions, tokens: tokens,
                orderIDs: try await Self.orderIDs(connection, userID: userID, limit: nil, logger: logger))
        }
    }

    public func recentOrderIDs(userID: String, limit: Int) async throws -> [String] {
        try await database.withConnection { connection in
            try await Self.orderIDs(connection, userID: userID, limit: limit, logger: self.database.logger)
        }
    }

    public func erase(userID: String) async throws -> Erasure {
        try await database.transaction { connection in
            let logger = self.database.logger
            func count(_ query: PostgresQuery) async throws -> Int {
                try await connection.rows(query, logger: logger).count
            }
            // The order's idempotency records go first: they name the token or session that placed it.
            _ = try await count(
                """
                DELETE FROM idempotencyRecord WHERE orderId IN (SELECT id FROM customerOrder WHERE userId = \(userID))
                RETURNING key
                """)
            _ = try await count(
                """
                DELETE FROM idempotencyKey WHERE orderId IN (SELECT id FROM customerOrder WHERE userId = \(userID))
                RETURNING key
                """)
            let unlinked = try await count(
                """
                UPDATE customerOrder SET customerName = '', tokenId = CASE
                    WHEN tokenId LIKE 'ses\\_%' OR tokenId LIKE 'idp\\_%'
                        OR tokenId IN (SELECT id FROM accessToken WHERE userId = \(userID)) THEN NULL ELSE tokenId END,
                    userId = NULL
                WHERE userId = \(userID) RETURNING id
                """)
            return Erasure(
                preferences: try await count("DELETE FROM userPreferences WHERE userId = \(userID) RETURNING userId"),
                cards: try await count("DELETE FROM card WHERE userId = \(userID) RETURNING userId"),
                enrolments: try await count("DELETE FROM cardEnrolment WHERE userId = \(userID) RETURNING userId"),
                sessions: try await count("DELETE FROM userSession WHERE userId = \(userID) RETURNING id"),
                tokens: try await count("DELETE FROM accessToken WHERE userId = \(userID) RETURNING id"),
                ordersUnlinked: unlinked)
        }
    }

    static func orderIDs(
        _ connection: PostgresConnection, userID: String, limit: Int?,
        logger: Logger
    ) async throws -> [String] {
        try await connection.rows(
            """
            SELECT id FROM customerOrder WHERE userId = \(userID) ORDER BY createdAt DESC, id DESC LIMIT \(limit ?? Int(Int32.max))
            """, logger: logger
        ).map { try StoredColumns.decode($0, table: "customerOrder", String.self) }
    }
}
