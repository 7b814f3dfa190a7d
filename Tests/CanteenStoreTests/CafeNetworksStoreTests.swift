import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Café networks in the store, on SQLite and PostgreSQL")
struct CafeNetworksStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    @Test(
        "a café's networks are saved and read back; a café file without them has none",
        arguments: StoreBackend.available)
    func roundTrip(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            #expect(try await stores.cafes.cafe(id: "testcafe")?.cafe.networks == [])
            var cafe = try #require(try await stores.cafes.cafe(id: "testcafe")?.cafe)
            cafe.networks = [try IPAddressRange.network("10.20.0.0/16"), try IPAddressRange.network("2001:db8:a::/48")]
            _ = try await stores.cafes.saveCafe(cafe)
            let read = try #require(try await stores.cafes.cafe(id: "testcafe")?.cafe)
            #expect(read.networks == cafe.networks)
            #expect(try await stores.cafes.cafes().first { $0.cafe.id == "testcafe" }?.cafe.networks == cafe.networks)
        }
    }
}
