import CanteenCore
import CanteenJSON
import CanteenPersistence
import Crypto
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `CardRepository`: cards are stored as
/// HMAC-SHA256(server key, "technology:IDENTIFIER-HEX"), exactly as in the SQLite store, so
/// cards copied with `canteen db copy` are recognised with the same key.
public final class PostgresCardStore: CardRepository {
    let database: PostgresDatabase
    private let key: PostgresServerKey
    private let clock: @Sendable () -> Date

    /// `key` is the key every server shares (`PostgresServerKey`).
    public init(database: PostgresDatabase, key: PostgresServerKey, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.key = key
        self.clock = clock
    }

    /// The keyed hash stored for a card, as hex.
    func hash(technology: CardTechnology, identifier: CardIdentifier) throws -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(technology.rawValue):\(identifier.hex)".utf8), using: SymmetricKey(data: try key.bytes()))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The hashes a card may be stored under, its canonical spelling's first (`CardIdentifier.spellings`).
    func hashes(technology: CardTechnology, identifier: CardIdentifier) throws -> [String] {
        try identifier.spellings(for: technology).map { try hash(technology: technology, identifier: $0) }
    }

    /// A card registered under another spelling (an ISO 15693 UID before they were made canonical) is stored under
    /// the canonical one (`hashes[0]`) from now on, unless that is taken.
    func storeCanonically(_ hashes: [String], _ connection: PostgresConnection) async throws {
        for legacy in hashes.dropFirst() {
            try await connection.run(
                """
                UPDATE card SET identifierHash = \(hashes[0]) WHERE identifierHash = \(legacy)
                AND NOT EXISTS (SELECT 1 FROM card WHERE identifierHash = \(hashes[0]))
                """, logger: database.logger)
        }
    }

    public func register(
        _ registration: CardRegistration, identifier: CardIdentifier,
        audit: AuditEntry?
    ) async throws -> CardRegistration {
        try UserID.validate(registration.userID)
        let hashes = try hashes(technology: registration.technology, identifier: identifier)
        let hash = hashes[0]
        let now = clock()
        return try await database.transaction { connection in
            try await self.storeCanonically(hashes, connection)
            let logger = self.database.logger
            let before = try await connection.firstRow(
                "SELECT identifierHash, userId, displayName FROM card WHERE identifierHash = \(hash) FOR UPDATE",
                logger: logger
            ).map { row in
                let (_, userID, displayName) = try StoredColumns.decode(
                    row, table: "card", (String, String, String?).self)
                return CardRegistration(userID: userID, displayName: displayName, technology: registration.technology)
            }
            // A new card is inserted; one registered already keeps its owner (and its name changes only for the owner).
            guard
                let row = try await connection.firstRow(
                    """
                    INSERT INTO card (identifierHash, technology, userId, displayName, createdAt)
                    VALUES (\(hash), \(registration.technology.rawValue), \(registration.userID), \(registration.displayName), \(now))
                    ON CONFLICT (identifierHash) DO UPDATE SET displayName = CASE
                        WHEN card.userId = excluded.userId THEN excluded.displayName ELSE card.displayName END
                    RETURNING userId
                    """, logger: self.database.logger)
            else { throw CanteenError.cardNotRegistered }
            let owner = try StoredColumns.decode(row, table: "card", String.self)
            guard owner == registration.userID else { throw CanteenError.cardAlreadyRegistered }
            try await PostgresAuditStore.record(
                audit?.targeting(RegisteredCard.id(identifierHash: hash)),
                before: before?.audited, after: registration.audited, at: now, connection,
                logger: logger)
            return registration
        }
    }

    public func identify(technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration {
        let hashes = try hashes(technology: technology, identifier: identifier)
        return try await database.withConnection { connection in
            var found: PostgresRow?
            for hash in hashes where found == nil {
                found = try await connection.firstRow(
                    "SELECT identifierHash, userId, displayName FROM card WHERE identifierHash = \(hash)",
                    logger: self.database.logger)
            }
            guard let row = found else { throw CanteenError.cardNotRegistered }
            let (_, userID, displayName) = try StoredColumns.decode(row, table: "card", (String, String, String?).self)
            return CardRegistration(userID: userID, displayName: displayName, technology: technology)
        }
    }

    // MARK: - One-time codes

    public func createEnrolment(
        userID: String, displayName: String?, expiresAt: Date,
        audit: AuditEntry?
    ) async throws -> String {
        try UserID.validate(userID)
        let code = EnrolmentCode.make()
        let hash = Self.codeHash(EnrolmentCode.normalized(code))
        let now = clock()
        try await database.transaction { connection in
            try await connection.run(
                """
                INSERT INTO cardEnrolment (codeHash, userId, displayName, expiresAt) VALUES (\(hash), \(userID),
                    \(displayName), \(expiresAt))
                """, logger: self.database.logger)
            try await PostgresAuditStore.record(
                audit, before: nil,
                after: EnrolmentAudit.audited(userID: userID, displayName: displayName, expiresAt: expiresAt),
                at: now, connection, logger: self.database.logger)
        }
        return code
    }

    // MARK: - Cards as ops see them

    public func cards(userID: String) async throws -> [RegisteredCard] {
        try await database.withConnection { connection in
            try await connection.rows(
                """
                SELECT identifierHash, technology, userId, displayName, createdAt FROM card
                WHERE userId = \(userID) ORDER BY createdAt, identifierHash
                """, logger: self.database.logger
            ).map(Self.registeredCard)
        }
    }

    public func removeCard(userID: String, cardID: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.transaction { connection in
            let logger = self.database.logger
            let rows = try await connection.rows(
                """
                SELECT identifierHash, technology, userId, displayName, createdAt FROM card WHERE userId = \(userID)
                FOR UPDATE
                """, logger: logger)
            var found: (hash: String, card: RegisteredCard)?
            for row in rows {
                let (hash, _, _, _, _) = try StoredColumns.decode(
                    row, table: "card",
                    (String, String, String, String?, Date).self)
                if RegisteredCard.id(identifierHash: hash) == cardID { found = (hash, try Self.registeredCard(row)) }
            }
            guard let (hash, card) = found else { throw CanteenError.cardNotRegistered }
            try await connection.run("DELETE FROM card WHERE identifierHash = \(hash)", logger: logger)
            try await PostgresAuditStore.record(
                audit, before: card.registration.audited, after: nil, at: now,
                connection, logger: logger)
        }
    }

    private static func registeredCard(_ row: PostgresRow) throws -> RegisteredCard {
        let (hash, name, userID, displayName, createdAt) = try StoredColumns.decode(
            row, table: "card", (String, String, String, String?, Date).self)
        return try .stored(
            identifierHash: hash, technology: name, userID: userID, displayName: displayName, createdAt: createdAt)
    }

    /// The code is spent by a conditional update (`usedAt IS NULL`): two kiosks presenting it
    /// at once, on any servers, register one card; the other gets `enrolment_code_invalid`.
    public func enrol(code: String, technology: CardTechnology, identifier: CardIdentifier) async throws
        -> CardRegistration
    {
        let hashes = try hashes(technology: technology, identifier: identifier)
        let hash = hashes[0]
        let now = clock()
        let normalized = EnrolmentCode.normalized(code)
        let codeHash = Self.codeHash(normalized)
        return try await database.transaction { connection in
            let logger = self.database.logger
            try await self.storeCanonically(hashes, connection)
            guard
                let row = try await connection.firstRow(
                    """
                    UPDATE cardEnrolment SET usedAt = \(now)
                    WHERE codeHash = \(codeHash) AND usedAt IS NULL AND expiresAt > \(now)
                    RETURNING codeHash, userId, displayName
                    """, logger: logger)
            else { throw CanteenError.enrolmentCodeInvalid }
            let (_, userID, displayName) = try StoredColumns.decode(
                row, table: "cardEnrolment",
                (String, String, String?).self)
            guard
                let owner = try await connection.firstRow(
                    """
                    INSERT INTO card (identifierHash, technology, userId, displayName, createdAt)
                    VALUES (\(hash), \(technology.rawValue), \(userID), \(displayName), \(now))
                    ON CONFLICT (identifierHash) DO UPDATE SET displayName = CASE
                        WHEN card.userId = excluded.userId THEN excluded.displayName ELSE card.displayName END
                    RETURNING userId
                    """, logger: logger)
            else { throw CanteenError.cardNotRegistered }
            // Another user's card: refused, and the code is not spent (the transaction rolls back).
            guard try StoredColumns.decode(owner, table: "card", String.self) == userID else {
                throw CanteenError.cardAlreadyRegistered
            }
            return CardRegistration(userID: userID, displayName: displayName, technology: technology)
        }
    }

    /// Codes are stored as SHA-256, as on SQLite (a copied code keeps working).
    static func codeHash(_ code: String) -> String {
        SHA256.hash(data: Data(code.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
