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
        if try await connection.firstRow(ClaimKey(key: key, orderID: orderID, now: now), logger: logger) != nil {
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
        let rows = try await connection.rows(
            ClaimKeys(
                tokenIDs: first.map(\.key.tokenID), keys: first.map(\.key.key),
                requestHashes: first.map { ByteBuffer(bytes: $0.key.requestHash) },
                orderIDs: first.map(\.orderID), answerLanguages: first.map { $0.key.answerLanguage ?? "" },
                hasAnswerLanguages: first.map { $0.key.answerLanguage != nil },
                createdAts: first.map(\.now)),
            logger: logger)
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

    /// The claim of a batch's keys, in the order given: each key's record for its order, unless
    /// the key is held already. Prepared: every batch of orders with keys runs it.
    struct ClaimKeys: FixedStatement {
        static let sql =
            ClaimKeys(
                tokenIDs: [], keys: [], requestHashes: [], orderIDs: [], answerLanguages: [], hasAnswerLanguages: [],
                createdAts: []
            ).query.sql

        let tokenIDs: [String]
        let keys: [String]
        let requestHashes: [ByteBuffer]
        let orderIDs: [String]
        /// Each key's answer language, "" where it has none (an array has no NULL element here)…
        let answerLanguages: [String]
        /// … and whether it has one.
        let hasAnswerLanguages: [Bool]
        let createdAts: [Date]

        var query: PostgresQuery {
            """
            INSERT INTO idempotencyRecord (tokenId, key, requestHash, orderId, answerLanguage, createdAt)
            SELECT claim.tokenId, claim.key, claim.requestHash, claim.orderId,
                CASE WHEN claim.hasAnswerLanguage THEN claim.answerLanguage END,
                claim.createdAt
            FROM unnest(\(tokenIDs)::text[], \(keys)::text[], \(requestHashes)::bytea[], \(orderIDs)::text[],
                \(answerLanguages)::text[], \(hasAnswerLanguages)::boolean[], \(createdAts)::timestamptz[])
                WITH ORDINALITY AS claim(tokenId, key, requestHash, orderId, answerLanguage, hasAnswerLanguage, createdAt,
                    position)
            WHERE NOT EXISTS (SELECT 1 FROM idempotencyKey held WHERE held.tokenId = claim.tokenId AND held.key = claim.key)
            ORDER BY claim.position
            ON CONFLICT (tokenId, key) DO NOTHING
            RETURNING tokenId, key
            """
        }
    }

    /// The claim itself: the key's record for this order, unless the key is held already (by a
    /// record, or by an answer stored before orders were rendered after commit). Prepared: every
    /// order with a key runs it.
    struct ClaimKey: FixedStatement {
        static let sql =
            (try? ClaimKey(
                key: IdempotencyKey(tokenID: "", key: "", requestHash: Data()), orderID: "",
                now: Date(timeIntervalSince1970: 0)
            ).query.sql) ?? ""

        let key: IdempotencyKey
        let orderID: String
        let now: Date

        var query: PostgresQuery {
            get throws {
                try """
                INSERT INTO idempotencyRecord (tokenId, key, requestHash, orderId, answerLanguage, createdAt)
                SELECT \(key.tokenID), \(key.key), \(key.requestHash), \(orderID), \(key.answerLanguage), \(now)
                WHERE NOT EXISTS (SELECT 1 FROM idempotencyKey WHERE tokenId = \(key.tokenID) AND key = \(key.key))
                ON CONFLICT (tokenId, key) DO NOTHING
                RETURNING orderId
                """
            }
        }
    }
}
