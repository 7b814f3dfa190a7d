import CanteenCore
import CanteenTestSupport
import Crypto
import Foundation
import Testing

@Suite("ISO 15693 UIDs in either byte order are one card, on SQLite and PostgreSQL")
struct CardSpellingTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
    static var key: SymmetricKey { SymmetricKey(data: Data(repeating: 7, count: 32)) }
    static let label = "E004010812345678"
    static let air = "78563412080104E0"

    /// The row an older Canteen stored for a card registered as `identifier`, as it was given.
    static func legacyHash(_ identifier: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("iso15693:\(identifier)".utf8), using: key)
            .map { String(format: "%02x", $0) }.joined()
    }

    @Test(
        "a card is stored under its label's spelling, whichever order it was given in",
        arguments: StoreBackend.available)
    func storedCanonically(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.cardStore(key: Self.key)
            _ = try await store.register(
                CardRegistration(userID: "ana", displayName: "Ana", technology: .iso15693),
                identifier: try CardIdentifier(Self.air))
            #expect(
                try await server.integer(
                    "SELECT COUNT(*) FROM card WHERE identifierHash = '\(Self.legacyHash(Self.label))'") == 1)
            #expect(
                try await store.identify(technology: .iso15693, identifier: try CardIdentifier(Self.label)).userID
                    == "ana")
            #expect(
                try await store.identify(technology: .iso15693, identifier: try CardIdentifier(Self.air)).userID
                    == "ana")
        }
    }

    @Test(
        "a card registered before, under the order on the air, is identified either way and stays one card",
        arguments: StoreBackend.available)
    func registeredBefore(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            // Given a row as older Canteen wrote it for an identifier given LSB first
            try await server.execute(
                """
                INSERT INTO card (identifierHash, technology, userId, displayName, createdAt)
                VALUES ('\(Self.legacyHash(Self.air))', 'iso15693', 'ana', 'Ana', '2026-11-20 09:00:00')
                """)
            let store = server.cardStore(key: Self.key)
            // Then a tap in either order names its owner, and nobody else can take the card
            for spelling in [Self.label, Self.air] {
                let found = try await store.identify(technology: .iso15693, identifier: try CardIdentifier(spelling))
                #expect(found == CardRegistration(userID: "ana", displayName: "Ana", technology: .iso15693))
            }
            await #expect(throws: CanteenError.cardAlreadyRegistered) {
                try await store.register(
                    CardRegistration(userID: "bo", displayName: nil, technology: .iso15693),
                    identifier: try CardIdentifier(Self.label))
            }
            let code = try await store.createEnrolment(
                userID: "bo", displayName: nil, expiresAt: Date().addingTimeInterval(600))
            await #expect(throws: CanteenError.cardAlreadyRegistered) {
                try await store.enrol(code: code, technology: .iso15693, identifier: try CardIdentifier(Self.label))
            }
            // When its owner registers it again, it is stored under the label's spelling: still one card
            _ = try await store.register(
                CardRegistration(userID: "ana", displayName: "Ana L.", technology: .iso15693),
                identifier: try CardIdentifier(Self.label))
            #expect(try await server.count("card") == 1)
            #expect(
                try await server.integer(
                    "SELECT COUNT(*) FROM card WHERE identifierHash = '\(Self.legacyHash(Self.label))'") == 1)
            #expect(
                try await store.identify(technology: .iso15693, identifier: try CardIdentifier(Self.air))
                    .displayName == "Ana L.")
        }
    }
}
