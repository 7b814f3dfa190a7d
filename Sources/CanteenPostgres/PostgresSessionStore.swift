import CanteenCore
import CanteenPersistence
import Crypto
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `SessionRepository`, with the same rows and hashes as the
/// SQLite store: a session made on one server is known to every server of the database.
public final class PostgresSessionStore: SessionRepository {
    let database: PostgresDatabase
    private let clock: @Sendable () -> Date
    private let ids: RandomID

    public init(
        database: PostgresDatabase, ids: RandomID = RandomID(), clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.ids = ids
        self.clock = clock
    }

    // MARK: - Sessions

    public func createSession(_ spec: SessionSpec) async throws -> (session: UserSession, secret: String) {
        try UserID.validate(spec.userID)
        let secret = "cns_" + ids.base64URL(bytes: 32)
        let now = clock()
        let session = UserSession(
            id: ids.make("ses"), userID: spec.userID, role: spec.role, name: spec.name,
            email: spec.email, createdAt: now, lastSeenAt: now)
        let (hash, idleSince) = (Self.hash(secret), now.addingTimeInterval(-UserSession.idleLimit))
        try await database.transaction { connection in
            let logger = self.database.logger
            try await connection.run("DELETE FROM userSession WHERE lastSeenAt < \(idleSince)", logger: logger)
            try await connection.run(
                """
                INSERT INTO userSession (id, secretHash, userId, role, name, email, createdAt, lastSeenAt)
                VALUES (\(session.id), \(hash), \(session.userID), \(session.role.rawValue), \(session.name),
                    \(session.email), \(now), \(now))
                """, logger: logger)
        }
        return (session, secret)
    }

    public func authenticate(secret: String) async throws -> UserSession? {
        let hash = Self.hash(secret)
        let now = clock()
        let found = try await database.withConnection { connection -> (UserSession, Data)? in
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT id, secretHash, userId, role, name, email, createdAt, lastSeenAt FROM userSession
                    WHERE secretHash = \(hash)
                    """, logger: self.database.logger)
            else { return nil }
            return try Self.session(row)
        }
        guard let (stored, storedHash) = found, ConstantTime.equals(storedHash, hash) else { return nil }
        var session = stored
        let id = session.id
        guard session.isLive(at: now) else {
            try await database.withConnection { connection in
                try await connection.run("DELETE FROM userSession WHERE id = \(id)", logger: self.database.logger)
            }
            return nil
        }
        if now.timeIntervalSince(session.lastSeenAt) >= UserSession.touchInterval {
            try await database.withConnection { connection in
                try await connection.run(
                    "UPDATE userSession SET lastSeenAt = \(now) WHERE id = \(id)",
                    logger: self.database.logger)
            }
            session.lastSeenAt = now
        }
        return session
    }

    public func endSession(secret: String) async throws -> Bool {
        let hash = Self.hash(secret)
        return try await database.withConnection { connection in
            try await connection.firstRow(
                "DELETE FROM userSession WHERE secretHash = \(hash) RETURNING id",
                logger: self.database.logger) != nil
        }
    }

    // MARK: - Sign-ins under way

    public func beginLogin(_ attempt: LoginAttempt) async throws -> String {
        let secret = ids.base64URL(bytes: 32)
        let hash = Self.hash(secret)
        let cutoff = clock().addingTimeInterval(-LoginAttempt.maxAge)
        try await database.transaction { connection in
            let logger = self.database.logger
            try await connection.run("DELETE FROM loginAttempt WHERE createdAt < \(cutoff)", logger: logger)
            try await connection.run(
                """
                INSERT INTO loginAttempt (browserHash, state, nonce, codeVerifier, next, createdAt)
                VALUES (\(hash), \(attempt.state), \(attempt.nonce), \(attempt.codeVerifier), \(attempt.next),
                    \(attempt.createdAt))
                """, logger: logger)
        }
        return secret
    }

    /// Deleted as it is read (`DELETE … RETURNING`): two callbacks with one cookie, on any
    /// servers, find it once.
    public func takeLogin(browserSecret: String) async throws -> LoginAttempt? {
        let hash = Self.hash(browserSecret)
        let now = clock()
        let attempt = try await database.withConnection { connection -> LoginAttempt? in
            guard
                let row = try await connection.firstRow(
                    """
                    DELETE FROM loginAttempt WHERE browserHash = \(hash)
                    RETURNING state, nonce, codeVerifier, next, createdAt
                    """, logger: self.database.logger)
            else { return nil }
            let (state, nonce, verifier, next, createdAt) = try StoredColumns.decode(
                row, table: "loginAttempt", (String, String, String, String, Date).self)
            return LoginAttempt(state: state, nonce: nonce, codeVerifier: verifier, next: next, createdAt: createdAt)
        }
        guard let attempt, now.timeIntervalSince(attempt.createdAt) <= LoginAttempt.maxAge else { return nil }
        return attempt
    }

    // MARK: - Rows

    /// A row of `id, secretHash, userId, role, name, email, createdAt, lastSeenAt`.
    static func session(_ row: PostgresRow) throws -> (UserSession, Data) {
        let (id, secretHash, userID, role, name, email, createdAt, lastSeenAt) = try StoredColumns.decode(
            row, table: "userSession", (String, Data, String, String, String?, String?, Date, Date).self)
        guard let parsed = Role(rawValue: role), parsed == .user || parsed == .ops else {
            throw StoredRow.invalid(table: "userSession", id: id, "'\(role)' is not a session role")
        }
        return (
            UserSession(
                id: id, userID: userID, role: parsed, name: name, email: email, createdAt: createdAt,
                lastSeenAt: lastSeenAt), secretHash
        )
    }

    static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }
}
