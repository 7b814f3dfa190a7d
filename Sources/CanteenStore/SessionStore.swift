import CanteenCore
import Crypto
import Foundation
import GRDB

/// The SQLite implementation of `SessionRepository`: sessions and sign-ins under way are rows
/// keyed by the SHA-256 of their secrets, which are random and shown once.
public final class SessionStore: SessionRepository {
    let database: AppDatabase
    private let clock: @Sendable () -> Date
    private let ids: RandomID

    public init(database: AppDatabase, ids: RandomID = RandomID(), clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.ids = ids
        self.clock = clock
    }

    // MARK: - Sessions

    public func createSession(_ spec: SessionSpec) async throws -> (session: UserSession, secret: String) {
        try UserID.validate(spec.userID)
        let secret = "cns_" + ids.base64URL(bytes: 32)
        let now = clock()
        let record = UserSessionRecord(
            id: ids.make("ses"), secretHash: Self.hash(secret), userId: spec.userID,
            role: spec.role.rawValue, name: spec.name, email: spec.email, createdAt: now,
            lastSeenAt: now)
        try await database.writer.write { db in
            try db.execute(
                sql: "DELETE FROM userSession WHERE lastSeenAt < ?",
                arguments: [now.addingTimeInterval(-UserSession.idleLimit)])
            try record.insert(db)
        }
        return (try record.session(), secret)
    }

    /// Looked up by the hash of the presented secret, then compared again in constant time. An
    /// idle session is deleted; a live one has `lastSeenAt` renewed at most once a minute.
    public func authenticate(secret: String) async throws -> UserSession? {
        let hash = Self.hash(secret)
        let now = clock()
        let found = try await database.writer.read { db in
            try UserSessionRecord.filter(Column("secretHash") == hash).fetchOneNamingRow(db)
        }
        guard let record = found, ConstantTime.equals(record.secretHash, hash) else { return nil }
        var session = try record.session()
        guard session.isLive(at: now) else {
            try await database.writer.write { db in
                try db.execute(sql: "DELETE FROM userSession WHERE id = ?", arguments: [record.id])
            }
            return nil
        }
        if now.timeIntervalSince(session.lastSeenAt) >= UserSession.touchInterval {
            try await database.writer.write { db in
                try db.execute(sql: "UPDATE userSession SET lastSeenAt = ? WHERE id = ?", arguments: [now, record.id])
            }
            session.lastSeenAt = now
        }
        return session
    }

    public func endSession(secret: String) async throws -> Bool {
        let hash = Self.hash(secret)
        return try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM userSession WHERE secretHash = ?", arguments: [hash])
            return db.changesCount > 0
        }
    }

    // MARK: - Sign-ins under way

    public func beginLogin(_ attempt: LoginAttempt) async throws -> String {
        let secret = ids.base64URL(bytes: 32)
        let record = LoginAttemptRecord(
            browserHash: Self.hash(secret), state: attempt.state, nonce: attempt.nonce,
            codeVerifier: attempt.codeVerifier, next: attempt.next,
            createdAt: attempt.createdAt)
        let now = clock()
        try await database.writer.write { db in
            try db.execute(
                sql: "DELETE FROM loginAttempt WHERE createdAt < ?",
                arguments: [now.addingTimeInterval(-LoginAttempt.maxAge)])
            try record.insert(db)
        }
        return secret
    }

    public func takeLogin(browserSecret: String) async throws -> LoginAttempt? {
        let hash = Self.hash(browserSecret)
        let now = clock()
        let record = try await database.writer.write { db -> LoginAttemptRecord? in
            guard let record = try LoginAttemptRecord.filter(key: hash).fetchOneNamingRow(db) else { return nil }
            try record.delete(db)
            return record
        }
        guard let record, ConstantTime.equals(record.browserHash, hash),
            now.timeIntervalSince(record.createdAt) <= LoginAttempt.maxAge
        else { return nil }
        return record.attempt
    }

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
