import CanteenCore
import CanteenJSON
import CanteenPersistence
import Crypto
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `TokenRepository`: secrets are random, shown once, stored
/// as SHA-256 (the same hash as the SQLite store, so copied tokens keep working).
///
/// Live tokens are cached until any server changes a token (the `tokens` notification): a
/// revocation applies at once on the revoking server and within milliseconds on the others.
public final class PostgresTokenStore: TokenRepository {
    let database: PostgresDatabase
    private let clock: @Sendable () -> Date
    private let ids: RandomID
    private let live: FollowingCache<Data, AccessToken>

    public init(
        database: PostgresDatabase, ids: RandomID = RandomID(), clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.ids = ids
        self.clock = clock
        live = FollowingCache(following: .tokens, in: database.changes)
    }

    static let select = "SELECT id, name, role, cafeId, userId, createdAt, revokedAt FROM accessToken"

    public func createToken(_ spec: TokenSpec, audit: AuditEntry?) async throws -> (token: AccessToken, secret: String)
    {
        try spec.validate()
        let (role, cafeID, userID, name) = (spec.role, spec.cafeID, spec.userID, spec.name)
        let secret = "cnt_" + ids.base64URL(bytes: 24)
        let id = ids.make("tok")
        let now = clock()
        let hash = Self.hash(secret)
        let token = try await database.transaction { connection in
            let logger = self.database.logger
            if let cafeID,
                try await connection.firstRow("SELECT 1 FROM cafe WHERE id = \(cafeID)", logger: logger) == nil
            {
                throw CanteenError.notFound(.cafe, cafeID, field: "cafeId")
            }
            guard
                let row = try await connection.firstRow(
                    """
                    INSERT INTO accessToken (id, name, role, cafeId, userId, secretHash, createdAt, revokedAt)
                    VALUES (\(id), \(name), \(role.rawValue), \(cafeID), \(userID), \(hash), \(now), NULL)
                    RETURNING id, name, role, cafeId, userId, createdAt, revokedAt
                    """, logger: logger)
            else { throw CanteenError.notFound(.token, id) }
            try await PostgresAuditStore.record(
                audit?.targeting(id), before: nil, after: spec.audited, at: now,
                connection, logger: logger)
            return try Self.token(row)
        }
        return (token, secret)
    }

    public func tokens() async throws -> [AccessToken] {
        try await database.withConnection { connection in
            let logger = self.database.logger
            var lastUsed: [String: Date] = [:]
            for row in try await connection.rows("SELECT tokenId, lastUsedAt FROM tokenUse", logger: logger) {
                let (id, at) = try StoredColumns.decode(row, table: "tokenUse", (String, Date).self)
                lastUsed[id] = at
            }
            return try await connection.rows("\(unescaped: Self.select) ORDER BY createdAt DESC, id", logger: logger)
                .map { row in
                    var token = try Self.token(row)
                    token.lastUsedAt = lastUsed[token.id]
                    return token
                }
        }
    }

    public func revokeToken(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        let secretHash = try await database.transaction { connection in
            let logger = self.database.logger
            // The row as it was (revoked or not), then the update, both under the row's lock.
            guard
                let before = try await connection.firstRow(
                    """
                    SELECT revokedAt IS NULL, cafeId FROM accessToken WHERE id = \(id) FOR UPDATE
                    """, logger: logger)
            else { throw CanteenError.notFound(.token, id) }
            let (wasLive, cafeID) = try StoredColumns.decode(before, table: "accessToken", (Bool, String?).self)
            var entry = audit
            entry?.cafeID = cafeID
            guard
                let row = try await connection.firstRow(
                    """
                    UPDATE accessToken SET revokedAt = COALESCE(revokedAt, \(now)) WHERE id = \(id) RETURNING secretHash
                    """, logger: logger)
            else { throw CanteenError.notFound(.token, id) }
            if wasLive {
                try await PostgresAuditStore.write(entry?.revocation(at: now), connection, logger: logger)
            }
            return try StoredColumns.decode(row, table: "accessToken", Data.self)
        }
        // After the commit; a request that read the row before it does not cache what it read.
        live.invalidate(secretHash)
    }

    public func authenticate(secret: String) async throws -> AccessToken? {
        let token = try await authenticated(secret: secret)
        if let token { await noteUse(of: token.id) }
        return token
    }

    /// Writes down that `tokenID` was used now, at most once a minute per token per server; a
    /// failed write costs the request nothing (the next use tries again).
    private func noteUse(of tokenID: String) async {
        let now = clock()
        guard uses.shouldWrite(tokenID, at: now) else { return }
        do {
            try await database.withConnection { connection in
                try await connection.run(
                    """
                    INSERT INTO tokenUse (tokenId, lastUsedAt) VALUES (\(tokenID), \(now))
                    ON CONFLICT (tokenId) DO UPDATE SET lastUsedAt = GREATEST(tokenUse.lastUsedAt, excluded.lastUsedAt)
                    """, logger: self.database.logger)
            }
        } catch {
            uses.forget(tokenID)
        }
    }

    private let uses = TokenUse()

    private func authenticated(secret: String) async throws -> AccessToken? {
        let hash = Self.hash(secret)
        return try await live.value(for: hash) {
            try await database.withConnection { connection in
                // Looked up by hash, then the stored hash compared again in constant time (as on SQLite).
                guard
                    let row = try await connection.firstRow(
                        """
                        SELECT id, name, role, cafeId, userId, createdAt, revokedAt, secretHash FROM accessToken
                        WHERE secretHash = \(hash) AND revokedAt IS NULL
                        """, logger: self.database.logger)
                else { return nil }
                let (id, name, role, cafeID, userID, createdAt, revokedAt, stored) = try StoredColumns.decode(
                    row, table: "accessToken", (String, String?, String, String?, String?, Date, Date?, Data).self)
                guard ConstantTime.equals(stored, hash) else { return nil }
                return try Self.token(
                    id: id, name: name, role: role, cafeID: cafeID, userID: userID, createdAt: createdAt,
                    revokedAt: revokedAt)
            }
        }
    }

    /// A row of `select`; a role this version does not know is an error naming the row.
    static func token(_ row: PostgresRow) throws -> AccessToken {
        let (id, name, role, cafeID, userID, createdAt, revokedAt) = try StoredColumns.decode(
            row, table: "accessToken", (String, String?, String, String?, String?, Date, Date?).self)
        return try token(
            id: id, name: name, role: role, cafeID: cafeID, userID: userID, createdAt: createdAt,
            revokedAt: revokedAt)
    }

    private static func token(
        id: String, name: String?, role: String, cafeID: String?, userID: String?, createdAt: Date,
        revokedAt: Date?
    ) throws -> AccessToken {
        guard let parsed = Role(rawValue: role) else {
            throw StoredRow.invalid(table: "accessToken", id: id, "'\(role)' is not a token role")
        }
        if parsed == .user, userID == nil {
            throw StoredRow.invalid(table: "accessToken", id: id, "a user token names no user")
        }
        return AccessToken(
            id: id, name: name, role: parsed, cafeID: cafeID, userID: userID, createdAt: createdAt,
            revokedAt: revokedAt)
    }

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
