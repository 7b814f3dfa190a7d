import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import Testing

@Suite("The beacon registry in SQLite")
struct BeaconStoreTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// The café and beacon stores over one in-memory database with `testcafe` (major 900) and
    /// `othercafe` (major 901), each with beacon minor 1.
    struct Stores {
        let cafes: CafeStore
        let beacons: BeaconStore
    }

    static func stores() async throws -> Stores {
        let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
        let database = try AppDatabase.inMemory()
        let cafes = CafeStore(database: database, clock: clock.closure)
        try await cafes.importCafes([try Fixtures.cafeAndMenu(), try Fixtures.cafeAndMenu(id: "othercafe", major: 901)])
        return Stores(cafes: cafes, beacons: BeaconStore(database: database, cafes: cafes, clock: clock.closure))
    }

    @Test("registering a beacon moves its café's version and shows it in the café's beacons")
    func register() async throws {
        let stores = try await Self.stores()
        let before = try #require(try await stores.cafes.cafe(id: "testcafe"))
        let created = try await stores.beacons.saveBeacon(
            BeaconRegistration(uuid: Self.uuid, major: 900, minor: 3, cafeID: "testcafe", label: "Grill", measuredPower: -58))
        #expect(created)
        let after = try #require(try await stores.cafes.cafe(id: "testcafe"))
        #expect(after.menuVersion > before.menuVersion)
        #expect(after.cafe.beacons.map(\.minor) == [1, 3])
        let menu = try #require(try await stores.cafes.menu(cafeID: "testcafe"))
        #expect(menu.cafe.beacons.map(\.minor) == [1, 3])
        let again = try await stores.beacons.saveBeacon(
            BeaconRegistration(uuid: Self.uuid, major: 900, minor: 3, cafeID: "testcafe", label: "Grill", measuredPower: -57))
        #expect(!again)
    }

    @Test("a café that does not exist, or a beacon outside the café's region, is refused naming cafeId")
    func refusals() async throws {
        let stores = try await Self.stores()
        for (cafe, major, code) in [("nowhere", 900, ErrorCode.unknownCafe), ("othercafe", 900, ErrorCode.beaconOutsideRegion)] as [(String, UInt16, ErrorCode)] {
            do {
                try await stores.beacons.saveBeacon(
                    BeaconRegistration(uuid: Self.uuid, major: major, minor: 5, cafeID: cafe, label: "", measuredPower: -60))
                Issue.record("registered to \(cafe)")
            } catch let error as CanteenError {
                #expect(error.code == code)
                #expect(error.field == "cafeId")
                #expect(error.kind == .invalid)
            }
        }
        #expect(try await stores.beacons.beacons().count == 2)
    }

    @Test("deleting a café without orders takes its menu and beacons with it")
    func deleteCafe() async throws {
        let stores = try await Self.stores()
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
