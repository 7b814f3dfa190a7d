import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `IdempotencyRepository`, and the claim the order
/// transaction makes on a key.
///
/// A key is claimed by inserting its record first (`ON CONFLICT DO NOTHING`): the same key in
/// flight on two servers makes the second wait until the first commits, then find the record
/// and replay the first order (or roll back, and place its own). One order per key, whatever
/// the servers.
public final class PostgresIdempotencyStore: IdempotencyRepository {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int {
        try await database.transaction { connection in
            let logger = self.database.logger
            let records = try await connection.rows(
                "DELETE FROM idempotencyRecord WHERE createdAt < \(cutoff) RETURNING key", logger: logger
            ).count
            let legacy = try await connection.rows(
                "DELETE FROM idempotencyKey WHERE createdAt < \(cutoff) RETURNING key", logger: logger
            ).count
            return records + legacy
        }
    }

    // MARK: - Inside the order transaction

    /// What a key already holds: the request's fingerprint, and the order (or, for a key
    /// stored before orders were rendered after commit, the first answer's bytes).
    enum Stored {
        case order(id: String, answerLanguage: String?)
        case answer(Data, contentLanguage: String?)
    }

    /// Claims `key` for the order `orderID`; nil when claimed, else what the key holds already.
    static func claim(
        _ connection: PostgresConnection, _ key: IdempotencyKey, orderID: String, now: Date,
        logger: Logger
    ) async throws -> (requestHash: Data, stored: Stored)? {
        if try await connection.firstRow(ClaimKeys([(key, orderID, now)]), logger: logger) != nil {
            return nil
        }
        if let row = try await connection.firstRow(
            """
            SELECT key, requestHash, orderId, answerLanguage FROM idempotencyRecord
            WHERE tokenId = \(key.tokenID) AND key = \(key.key)
            """, logger: logger)
        {
            let (_, hash, order, language) = try StoredColumns.decode(
                row, table: "idempotencyRecord", (String, Data, String, String?).self)
            return (hash, .order(id: order, answerLanguage: language))
        }
        guard
            let row = try await connection.firstRow(
                """
                SELECT key, requestHash, body, contentLanguage FROM idempotencyKey WHERE tokenId = \(key.tokenID) AND key = \(key.key)
                """, logger: logger)
        else {
            throw StoredRow.invalid(
                table: "idempotencyRecord", id: key.key, "the key could be neither claimed nor read")
        }
        let (_, hash, body, language) = try StoredColumns.decode(
            row, table: "idempotencyKey", (String, Data, Data, String?).self)
        return (hash, .answer(body, contentLanguage: language))
    }

    /// Claims the keys of a batch's placements in one statement, in the order given (the
    /// batch's key order); each key once, at its first placement. Returns the placements whose
    /// key this claimed: any other placement with a key (a key held already, or a second
    /// placement of a key in the batch) goes through `claim` at its turn, which finds what the
    /// key holds or claims it if the first placement was refused and gave it back.
    static func claimFirst(
        _ connection: PostgresConnection,
        _ placements: [(index: Int, key: IdempotencyKey, orderID: String, now: Date)], logger: Logger
    ) async throws -> Set<Int> {
        var seen = Set<ClaimedKey>()
        let first = placements.filter { seen.insert(ClaimedKey(tokenID: $0.key.tokenID, key: $0.key.key)).inserted }
        guard !first.isEmpty else { return [] }
        let rows = try await connection.rows(ClaimKeys(first.map { ($0.key, $0.orderID, $0.now) }), logger: logger)
        var claimed = Set<ClaimedKey>()
        for row in rows {
            let (tokenID, key) = try StoredColumns.decode(row, table: "idempotencyRecord", (String, String).self)
            claimed.insert(ClaimedKey(tokenID: tokenID, key: key))
        }
        return Set(first.filter { claimed.contains(ClaimedKey(tokenID: $0.key.tokenID, key: $0.key.key)) }.map(\.index))
    }

    private struct ClaimedKey: Hashable {
        let tokenID: String
        let key: String
    }

    /// The claim of keys, in the order given: each key's record for its order, unless the key is
    /// held already (by a record, or by an answer stored before orders were rendered after
    /// commit). Returns the keys it claimed. Prepared: every batch of orders with keys runs it,
    /// and `claim` for one key.
    struct ClaimKeys: FixedStatement {
        static let sql = ClaimKeys([]).query.sql

        /// Each key, the order it is claimed for, and when.
        let claims: [(key: IdempotencyKey, orderID: String, now: Date)]

        init(_ claims: [(key: IdempotencyKey, orderID: String, now: Date)]) {
            self.claims = claims
        }

        // Arrays carry no NULL element here: an answer language is a value ("" for none) and a flag.
        var query: PostgresQuery {
            let keys = claims.map(\.key)
            return """
                INSERT INTO idempotencyRecord (tokenId, key, requestHash, orderId, answerLanguage, createdAt)
                SELECT claim.tokenId, claim.key, claim.requestHash, claim.orderId,
                    CASE WHEN claim.hasAnswerLanguage THEN claim.answerLanguage END,
                    claim.createdAt
                FROM unnest(\(keys.map(\.tokenID))::text[], \(keys.map(\.key))::text[],
                    \(keys.map { ByteBuffer(bytes: $0.requestHash) })::bytea[], \(claims.map(\.orderID))::text[],
                    \(keys.map { $0.answerLanguage ?? "" })::text[], \(keys.map { $0.answerLanguage != nil })::boolean[],
                    \(claims.map(\.now))::timestamptz[])
                    WITH ORDINALITY AS claim(tokenId, key, requestHash, orderId, answerLanguage, hasAnswerLanguage, createdAt,
                        position)
                WHERE NOT EXISTS (SELECT 1 FROM idempotencyKey held WHERE held.tokenId = claim.tokenId AND held.key = claim.key)
                ORDER BY claim.position
                ON CONFLICT (tokenId, key) DO NOTHING
                RETURNING tokenId, key
                """
        }
    }
}
