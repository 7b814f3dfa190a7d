import CanteenCore
import CanteenJSON
import CanteenPersistence
import Crypto
import Foundation
import GRDB

/// The SQLite implementation of `CardRepository`. A card is stored as HMAC-SHA256(server key,
/// "technology:IDENTIFIER-HEX"): the table alone does not reveal identifiers, and without the key a
/// leaked table cannot be matched against cards read in the wild.
public final class CardStore: CardRepository {
    let database: AppDatabase
    /// The key's bytes (SymmetricKey is not Sendable).
    private let keyBytes: [UInt8]
    private let clock: @Sendable () -> Date

    /// `key` is the server's card key (at least 32 bytes).
    public init(database: AppDatabase, key: SymmetricKey, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.keyBytes = key.withUnsafeBytes { Array($0) }
        self.clock = clock
    }

    /// The keyed hash stored for a card, as hex.
    func hash(technology: CardTechnology, identifier: CardIdentifier) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(technology.rawValue):\(identifier.hex)".utf8), using: SymmetricKey(data: keyBytes))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The hashes a card may be stored under, its canonical spelling's first (`CardIdentifier.spellings`).
    func hashes(technology: CardTechnology, identifier: CardIdentifier) -> [String] {
        identifier.spellings(for: technology).map { hash(technology: technology, identifier: $0) }
    }

    /// A card registered under another spelling (an ISO 15693 UID before they were made canonical) is stored under
    /// the canonical one (`hashes[0]`) from now on, unless that is taken.
    static func storeCanonically(_ hashes: [String], _ db: Database) throws {
        for legacy in hashes.dropFirst() {
            try db.execute(
                sql: """
                    UPDATE card SET identifierHash = ? WHERE identifierHash = ?
                    AND NOT EXISTS (SELECT 1 FROM card WHERE identifierHash = ?)
                    """, arguments: [hashes[0], legacy, hashes[0]])
        }
    }

    public func register(
        _ registration: CardRegistration, identifier: CardIdentifier,
        audit: AuditEntry?
    ) async throws -> CardRegistration {
        try UserID.validate(registration.userID)
        let hashes = hashes(technology: registration.technology, identifier: identifier)
        let hash = hashes[0]
        let now = clock()
        return try await database.writer.write { db in
            try Self.storeCanonically(hashes, db)
            var before: JSONValue?
            if let existing = try Row.fetchOne(
                db, sql: "SELECT userId, displayName FROM card WHERE identifierHash = ?", arguments: [hash])
            {
                let owner: String = existing["userId"]
                guard owner == registration.userID else { throw CanteenError.cardAlreadyRegistered }
                before =
                    CardRegistration(
                        userID: owner, displayName: existing["displayName"],
                        technology: registration.technology
                    ).audited
            }
            try db.execute(
                sql: """
                    INSERT INTO card (identifierHash, technology, userId, displayName, createdAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (identifierHash) DO UPDATE SET displayName = excluded.displayName
                    """,
                arguments: [hash, registration.technology.rawValue, registration.userID, registration.displayName, now])
            try AuditStore.record(
                audit?.targeting(RegisteredCard.id(identifierHash: hash)), before: before,
                after: registration.audited, at: now, db)
            return registration
        }
    }

    public func identify(technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration {
        let hashes = hashes(technology: technology, identifier: identifier)
        return try await database.writer.read { db in
            guard
                let row = try hashes.lazy.compactMap({ hash in
                    try Row.fetchOne(
                        db, sql: "SELECT userId, displayName FROM card WHERE identifierHash = ?", arguments: [hash])
                }).first
            else { throw CanteenError.cardNotRegistered }
            return CardRegistration(userID: row["userId"], displayName: row["displayName"], technology: technology)
        }
    }

    // MARK: - One-time codes

    public func createEnrolment(
        userID: String, displayName: String?, expiresAt: Date,
        audit: AuditEntry?
    ) async throws -> String {
        try UserID.validate(userID)
        let code = EnrolmentCode.make()
        let now = clock()
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO cardEnrolment (codeHash, userId, displayName, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [Self.codeHash(EnrolmentCode.normalized(code)), userID, displayName, expiresAt])
            let enrolment = EnrolmentAudit.audited(userID: userID, displayName: displayName, expiresAt: expiresAt)
            try AuditStore.record(audit, before: nil, after: enrolment, at: now, db)
        }
        return code
    }

    // MARK: - Cards as ops see them

    public func cards(userID: String) async throws -> [RegisteredCard] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT identifierHash, technology, userId, displayName, createdAt FROM card
                    WHERE userId = ? ORDER BY createdAt, identifierHash
                    """, arguments: [userID]
            ).map(Self.registeredCard(from:))
        }
    }

    public func removeCard(userID: String, cardID: String, audit: AuditEntry?) async throws {
        let now = clock()
        try await database.writer.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT identifierHash, technology, userId, displayName, createdAt FROM card WHERE userId = ?
                    """, arguments: [userID])
            guard let row = rows.first(where: { RegisteredCard.id(identifierHash: $0["identifierHash"]) == cardID })
            else {
                throw CanteenError.cardNotRegistered
            }
            let card = try Self.registeredCard(from: row)
            try db.execute(
                sql: "DELETE FROM card WHERE identifierHash = ?", arguments: [row["identifierHash"] as String])
            try AuditStore.record(audit, before: card.registration.audited, after: nil, at: now, db)
        }
    }

    private static func registeredCard(from row: Row) throws -> RegisteredCard {
        try .stored(
            identifierHash: row["identifierHash"], technology: row["technology"], userID: row["userId"],
            displayName: row["displayName"], createdAt: row["createdAt"])
    }

    public func enrol(code: String, technology: CardTechnology, identifier: CardIdentifier) async throws
        -> CardRegistration
    {
        let hashes = hashes(technology: technology, identifier: identifier)
        let hash = hashes[0]
        let now = clock()
        return try await database.writer.write { db in
            try Self.storeCanonically(hashes, db)
            let normalized = EnrolmentCode.normalized(code)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT userId, displayName FROM cardEnrolment WHERE codeHash = ? AND usedAt IS NULL AND expiresAt > ?",
                    arguments: [Self.codeHash(normalized), now])
            else { throw CanteenError.enrolmentCodeInvalid }
            let registration = CardRegistration(
                userID: row["userId"], displayName: row["displayName"], technology: technology)
            if let owner = try String.fetchOne(
                db, sql: "SELECT userId FROM card WHERE identifierHash = ?", arguments: [hash]),
                owner != registration.userID
            {
                throw CanteenError.cardAlreadyRegistered
            }
            try db.execute(
                sql: """
                    INSERT INTO card (identifierHash, technology, userId, displayName, createdAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (identifierHash) DO UPDATE SET displayName = excluded.displayName
                    """,
                arguments: [hash, technology.rawValue, registration.userID, registration.displayName, now])
            try db.execute(
                sql: "UPDATE cardEnrolment SET usedAt = ? WHERE codeHash = ?",
                arguments: [now, Self.codeHash(normalized)])
            return registration
        }
    }

    /// Codes are stored as SHA-256: a copy of the table does not give working codes.
    static func codeHash(_ code: String) -> String {
        SHA256.hash(data: Data(code.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
