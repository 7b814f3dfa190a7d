import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

/// A card row that does not parse is an error naming the card, on both engines, never a default.
@Suite("Stored cards that do not parse, on SQLite and PostgreSQL")
struct StoredCardTests {
    @Test(
        "a card whose stored technology Canteen does not know: listing the person's cards names it",
        arguments: StoreBackend.available)
    func unknownTechnology(backend: StoreBackend) async throws {
        try await backend.withStores(clock: TestClock(Fixtures.chicagoMonday(hour: 9)), onDisk: true) { server in
            let cards = server.stores.cards
            _ = try await cards.register(
                CardRegistration(userID: "u-ana", displayName: "Ana", technology: .type2),
                identifier: try CardIdentifier("04A25C1A2B3C80"))
            #expect(try await cards.cards(userID: "u-ana").map(\.registration.technology) == [.type2])

            try await server.execute("UPDATE card SET technology = 'warp'")

            let error = try await #require(throws: CanteenError.self) { try await cards.cards(userID: "u-ana") }
            #expect(error.message.contains("'warp' is not a card technology"), "\(error.message)")
            #expect(error.message.contains("card"), "\(error.message)")
        }
    }
}
