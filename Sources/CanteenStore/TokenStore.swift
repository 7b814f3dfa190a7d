import CanteenCore
import CanteenJSON
import CanteenPersistence
import Crypto
import Foundation
import GRDB

/// The SQLite implementation of `TokenRepository`: secrets are random, shown once, stored as SHA-256.
public final class TokenStore: TokenRepository {
    let database: AppDatabase
    private let clock: @Sendable () -> Date
    private let ids: RandomID

    public init(database: AppDatabase, ids: RandomID = RandomID(), clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.ids = ids
        self.clock = clock
        live = FollowingCache(following: .tokens, in: database.changes)
    }

    public func createToken(_ spec: TokenSpec, audit: AuditEntry?) async throws -> (token: AccessToken, secret: String)
    {
        try spec.validate()
        let secret = "cnt_" + ids.base64URL(bytes: 24)
        let id = ids.make("tok")
        let record = AccessTokenRecord(
            id: id, name: spec.name, role: spec.role.rawValue, cafeId: spec.cafeID,
            userId: spec.userID, secretHash: Self.hash(secret), createdAt: clock(),
            revokedAt: nil)
        try await database.writer.write { db in
            if let cafeID = spec.cafeID, try !CafeRecord.exists(db, key: cafeID) {
                throw CanteenError.notFound(.cafe, cafeID, field: "cafeId")
            }
            try record.insert(db)
            try AuditStore.record(audit?.targeting(id), before: nil, after: spec.audited, at: record.createdAt, db)
        }
        return (try record.token(), secret)
    }

    public func tokens() async throws -> [AccessToken] {
        try await database.writer.read { db in
            let uses = try Row.fetchAll(db, sql: "SELECT tokenId, lastUsedAt FROM tokenUse")
            let lastUsed = Dictionary(
                uses.map { ($0["tokenId"] as String, $0["lastUsedAt"] as Date) },
                uniquingKeysWith: { first, _ in first })
            return try AccessTokenRecord.order(Column("createdAt").desc, Column("id")).fetchAllNamingRows(db).map {
                var token = try $0.token()
                token.lastUsedAt = lastUsed[token.id]
                return token
            }
        }
    }

    public func revokeToken(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        let secretHash = try await database.writer.write { db in
            guard var record = try AccessTokenRecord.filter(key: id).fetchOneNamingRow(db) else {
                throw CanteenError.notFound(.token, id)
            }
            if record.revokedAt == nil {
                record.revokedAt = now
                try record.update(db)
                var entry = audit
                entry?.cafeID = record.cafeId
                try AuditStore.write(entry?.revocation(at: now), db)
            }
            return record.secretHash
        }
        // After the commit; a request that read the row before it does not cache what it read.
        live.invalidate(secretHash)
    }

    /// Live tokens by secret hash, until a token changes: every request authenticates. This
    /// store's own revocations apply at once; another process's (`canteen tokens revoke`) as
    /// soon as the change watcher reads the counters.
    private let live: FollowingCache<Data, AccessToken>

    /// Secrets are never compared as such: the SHA-256 of the presented secret is looked up (the
    /// index compares hashes, which an attacker cannot steer byte by byte), and the row found is
    /// checked again in constant time.
    public func authenticate(secret: String) async throws -> AccessToken? {
        let hash = Self.hash(secret)
        let token = try await live.value(for: hash) {
            try await database.writer.read { db in
                guard
                    let record = try AccessTokenRecord.filter(
                        Column("secretHash") == hash && Column("revokedAt") == nil
                    )
                    .fetchOneNamingRow(db), ConstantTime.equals(record.secretHash, hash)
                else { return nil }
                return try record.token()
            }
        }
        if let token { await noteUse(of: token.id) }
        return token
    }

    /// Writes down that `tokenID` was used now, at most once a minute per token; a failed write
    /// costs the request nothing (the next use tries again).
    private func noteUse(of tokenID: String) async {
        let now = clock()
        guard uses.shouldWrite(tokenID, at: now) else { return }
        do {
            try await database.writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO tokenUse (tokenId, lastUsedAt) VALUES (?, ?)
                        ON CONFLICT (tokenId) DO UPDATE SET lastUsedAt = excluded.lastUsedAt
                        """, arguments: [tokenID, now])
            }
        } catch {
            uses.forget(tokenID)
        }
    }

    private let uses = TokenUse()

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
