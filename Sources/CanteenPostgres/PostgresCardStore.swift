import CanteenCore
import Crypto
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `CardRepository`: cards are stored as
/// HMAC-SHA256(server key, "technology:IDENTIFIER-HEX"), exactly as in the SQLite store, so
/// cards copied with `canteen db copy` are recognised with the same key.
public final class PostgresCardStore: CardRepository {
    let database: PostgresDatabase
    /// The key's bytes (SymmetricKey is not Sendable).
    private let keyBytes: [UInt8]
    private let clock: @Sendable () -> Date

    /// `key` is the server's card key (`CANTEEN_CARD_KEY`, shared by every server).
    public init(database: PostgresDatabase, key: SymmetricKey, clock: @escaping @Sendable () -> Date = Date.init) {
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

    public func register(_ registration: CardRegistration, identifier: CardIdentifier) async throws -> CardRegistration {
        guard !registration.userID.isEmpty, registration.userID.count <= 128 else {
            throw CanteenError(.invalid, code: .invalidField, message: "a user id has 1 to 128 characters", field: "userId")
        }
        let hash = hash(technology: registration.technology, identifier: identifier)
        let now = clock()
        return try await database.transaction { connection in
            // A new card is inserted; one registered already keeps its owner (and its name changes only for the owner).
            guard let row = try await connection.firstRow("""
                INSERT INTO card (identifierHash, technology, userId, displayName, createdAt)
                VALUES (\(hash), \(registration.technology.rawValue), \(registration.userID), \(registration.displayName), \(now))
                ON CONFLICT (identifierHash) DO UPDATE SET displayName = CASE
                    WHEN card.userId = excluded.userId THEN excluded.displayName ELSE card.displayName END
                RETURNING userId
                """, logger: self.database.logger) else { throw CanteenError.cardNotRegistered }
            let owner = try StoredColumns.decode(row, table: "card", String.self)
            guard owner == registration.userID else { throw CanteenError.cardAlreadyRegistered }
            return registration
        }
    }

    public func identify(technology: CardTechnology, identifier: CardIdentifier) async throws -> CardRegistration {
        let hash = hash(technology: technology, identifier: identifier)
        return try await database.withConnection { connection in
            guard let row = try await connection.firstRow(
                "SELECT identifierHash, userId, displayName FROM card WHERE identifierHash = \(hash)",
                logger: self.database.logger) else { throw CanteenError.cardNotRegistered }
            let (_, userID, displayName) = try StoredColumns.decode(row, table: "card", (String, String, String?).self)
            return CardRegistration(userID: userID, displayName: displayName, technology: technology)
        }
    }
}
