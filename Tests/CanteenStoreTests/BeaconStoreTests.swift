import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import Testing

@Suite("The beacon registry, on SQLite and PostgreSQL")
struct BeaconStoreTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// Runs `body` on the stores of a fresh database of `backend` with `testcafe` (major 900)
    /// and `othercafe` (major 901), each with beacon minor 1.
    static func withStores(_ backend: StoreBackend, _ body: (CanteenStores) async throws -> Void) async throws {
        try await backend.withStores(clock: TestClock(Fixtures.chicagoMonday(hour: 9))) { server in
            try await server.stores.cafes.importCafes([
                try Fixtures.cafeAndMenu(),
                try Fixtures.cafeAndMenu(id: "othercafe", major: 901),
            ])
            try await body(server.stores)
        }
    }

    @Test(
        "registering a beacon moves its café's version and shows it in the café's beacons",
        arguments: StoreBackend.available)
    func register(backend: StoreBackend) async throws {
        try await Self.withStores(backend) { stores in
            let before = try #require(try await stores.cafes.cafe(id: "testcafe"))
            let created = try await stores.beacons.saveBeacon(
                BeaconRegistration(
                    uuid: Self.uuid, major: 900, minor: 3, cafeID: "testcafe", label: "Grill", measuredPower: -58))
            #expect(created)
            let after = try #require(try await stores.cafes.cafe(id: "testcafe"))
            #expect(after.menuVersion > before.menuVersion)
            #expect(after.cafe.beacons.map(\.minor) == [1, 3])
            let menu = try #require(try await stores.cafes.menu(cafeID: "testcafe"))
            #expect(menu.cafe.beacons.map(\.minor) == [1, 3])
            let again = try await stores.beacons.saveBeacon(
                BeaconRegistration(
                    uuid: Self.uuid, major: 900, minor: 3, cafeID: "testcafe", label: "Grill", measuredPower: -57))
            #expect(!again)
        }
    }

    @Test(
        "a café that does not exist, or a beacon outside the café's region, is refused naming cafeId",
        arguments: StoreBackend.available)
    func refusals(backend: StoreBackend) async throws {
        try await Self.withStores(backend) { stores in
            for (cafe, major, code) in [
                ("nowhere", 900, ErrorCode.unknownCafe), ("othercafe", 900, ErrorCode.beaconOutsideRegion),
            ] as [(String, UInt16, ErrorCode)] {
                do {
                    try await stores.beacons.saveBeacon(
                        BeaconRegistration(
                            uuid: Self.uuid, major: major, minor: 5, cafeID: cafe, label: "", measuredPower: -60))
                    Issue.record("registered to \(cafe)")
                } catch let error as CanteenError {
                    #expect(error.code == code)
                    #expect(error.field == "cafeId")
                    #expect(error.kind == .invalid)
                }
            }
            #expect(try await stores.beacons.beacons().count == 2)
        }
    }

    @Test("deleting a café without orders takes its menu and beacons with it", arguments: StoreBackend.available)
    func deleteCafe(backend: StoreBackend) async throws {
        try await Self.withStores(backend) { stores in
            try await stores.cafes.deleteCafe(id: "othercafe")
            #expect(try await stores.cafes.cafe(id: "othercafe") == nil)
            #expect(try await stores.cafes.menu(cafeID: "othercafe") == nil)
            #expect(try await stores.beacons.beacons().map(\.cafeID) == ["testcafe"])
            do {
                try await stores.cafes.deleteCafe(id: "othercafe")
                Issue.record("deleted twice")
            } catch let error as CanteenError {
                #expect(error.code == .cafeNotFound)
            }
        }
    }
}
