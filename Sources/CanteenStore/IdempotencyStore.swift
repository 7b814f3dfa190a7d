import CanteenCore
import Foundation
import GRDB

/// The SQLite implementation of `IdempotencyRepository`, and the rows the order writer keeps
/// under each key: the order placed, the request's fingerprint and the first answer's language.
public final class IdempotencyStore: IdempotencyRepository {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int {
        try await database.writer.write { db in
            let purged = try IdempotencyRecord.filter(Column("createdAt") < cutoff).deleteAll(db)
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE createdAt < ?", arguments: [cutoff])
            return purged + db.changesCount
        }
    }

    // MARK: - Inside the order writer

    /// What a key already holds: the request's fingerprint, and the order (or, for a key
    /// stored before v5, the first answer's bytes; looked up only when `legacy` says that
    /// table has rows).
    enum Stored {
        case order(id: String, answerLanguage: String?)
        case answer(Data, contentLanguage: String?)
    }

    static func stored(
        _ db: Database, for key: IdempotencyKey,
        legacy: Bool
    ) throws -> (requestHash: Data, stored: Stored)? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT requestHash, orderId, answerLanguage FROM idempotencyRecord WHERE tokenId = ? AND key = ?
                """)
        if let row = try Row.fetchOne(statement, arguments: [key.tokenID, key.key]) {
            return (row["requestHash"], .order(id: row["orderId"], answerLanguage: row["answerLanguage"]))
        }
        guard legacy else { return nil }
        let legacyQuery = try db.cachedStatement(
            sql: """
                SELECT requestHash, body, contentLanguage FROM idempotencyKey WHERE tokenId = ? AND key = ?
                """)
        guard let row = try Row.fetchOne(legacyQuery, arguments: [key.tokenID, key.key]) else { return nil }
        return (row["requestHash"], .answer(row["body"], contentLanguage: row["contentLanguage"]))
    }

    static func insert(_ record: IdempotencyRecord, _ db: Database) throws {
        var statement = try BoundStatement(
            db,
            sql: """
                INSERT INTO idempotencyRecord (tokenId, key, requestHash, orderId, answerLanguage, createdAt)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        statement.bind(record.tokenId)
        statement.bind(record.key)
        statement.bind(record.requestHash)
        statement.bind(record.orderId)
        statement.bind(record.answerLanguage)
        statement.bind(StoredTimestamp.text(record.createdAt))
        try statement.run()
    }
}
