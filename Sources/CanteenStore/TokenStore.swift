import CanteenCore
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

    public func createToken(_ spec: TokenSpec) async throws -> (token: AccessToken, secret: String) {
        try spec.validate()
        let secret = "cnt_" + ids.base64URL(bytes: 24)
        let id = ids.make("tok")
        let record = AccessTokenRecord(id: id, name: spec.name, role: spec.role.rawValue, cafeId: spec.cafeID,
                                       userId: spec.userID, secretHash: Self.hash(secret), createdAt: clock(),
                                       revokedAt: nil)
        try await database.writer.write { db in
            if let cafeID = spec.cafeID, try !CafeRecord.exists(db, key: cafeID) {
                throw CanteenError.notFound(.cafe, cafeID, field: "cafeId")
            }
            try record.insert(db)
        }
        return (try record.token(), secret)
    }

    public func tokens() async throws -> [AccessToken] {
        try await database.writer.read { db in
            try AccessTokenRecord.order(Column("createdAt").desc, Column("id")).fetchAllNamingRows(db).map { try $0.token() }
        }
    }

    public func revokeToken(id: String) async throws {
        let now = clock()
        let secretHash = try await database.writer.write { db in
            guard var record = try AccessTokenRecord.filter(key: id).fetchOneNamingRow(db) else {
                throw CanteenError.notFound(.token, id)
            }
            if record.revokedAt == nil {
                record.revokedAt = now
                try record.update(db)
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
        return try await live.value(for: hash) {
            try await database.writer.read { db in
                guard let record = try AccessTokenRecord.filter(Column("secretHash") == hash && Column("revokedAt") == nil)
                    .fetchOneNamingRow(db), ConstantTime.equals(record.secretHash, hash) else { return nil }
                return try record.token()
            }
        }
    }

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
