import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Testing

@Suite("Café store on SQLite")
struct CafeStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    func store() throws -> CafeStore {
        CafeStore(database: try AppDatabase.inMemory(), clock: clock.closure)
    }

    @Test("a café row whose zone, currency or capacity unit does not parse is an error naming the row", arguments: [
        ("timeZone", "'Mars/Olympus'"), ("currency", "'XXQ'"), ("pickupCapacityUnit", "'plates'"),
    ])
    func corruptRows(column: String, value: String) async throws {
        let database = try AppDatabase.inMemory()
        let store = CafeStore(database: database, clock: clock.closure)
        try await store.importCafes([try Fixtures.cafeAndMenu()])
        try await database.writer.write { try $0.execute(sql: "UPDATE cafe SET \(column) = \(value)") }
        await #expect {
            _ = try await store.cafes()
        } throws: { error in
            let error = try #require(error as? CanteenError)
            return error.code == .storedDataInvalid && error.message.contains("testcafe")
                && error.message.contains(value.trimmingCharacters(in: ["'"]))
        }
    }

    @Test("a token row with an unknown role, or a beacon row with a broken identity, is an error naming the row")
    func corruptTokenAndBeaconRows() async throws {
        let database = try AppDatabase.inMemory()
        let tokens = TokenStore(database: database, clock: clock.closure)
        let (token, secret) = try await tokens.createToken(role: .kiosk, cafeID: nil, name: "counter")
        try await database.writer.write { try $0.execute(sql: "UPDATE accessToken SET role = 'root'") }
        await #expect {
            _ = try await tokens.authenticate(secret: secret)
        } throws: { error in
            let error = try #require(error as? CanteenError)
            return error.code == .storedDataInvalid && error.message.contains(token.id) && error.message.contains("root")
        }
        let cafes = CafeStore(database: database, clock: clock.closure)
        try await cafes.importCafes([try Fixtures.cafeAndMenu()])
        let beacons = BeaconStore(database: database, cafes: cafes, clock: clock.closure)
        try await database.writer.write {
            try $0.execute(sql: "INSERT INTO beacon (uuid, major, minor, cafeId, label, measuredPower) VALUES ('not-a-uuid', 1, 2, 'testcafe', '', -59)")
        }
        await #expect {
            _ = try await beacons.beacons()
        } throws: { error in
            let error = try #require(error as? CanteenError)
            return error.code == .storedDataInvalid && error.message.contains("not-a-uuid")
        }
    }

    @Test("an imported café reads back with the same configuration and menu")
    func importRoundTrip() async throws {
        let store = try store()
        let document = try Fixtures.cafeAndMenu()
        try await store.importCafes([document])
        let stored = try #require(try await store.menu(cafeID: "testcafe"))
        #expect(stored.cafe == document.cafe)
        #expect(stored.menu == document.menu)
        #expect(stored.version == 1)
        #expect(try await store.cafes().map(\.cafe.id) == ["testcafe"])
    }

    @Test("every change moves the menu version forward, re-imports included")
    func versions() async throws {
        let store = try store()
        let document = try Fixtures.cafeAndMenu()
        try await store.importCafes([document])
        let afterPrice = try await store.updateItem(cafeID: "testcafe", itemID: "latte", changes: [.price(500)])
        let afterMenu = try await store.replaceMenu(cafeID: "testcafe", with: document.menu)
        _ = try await store.saveCafe(document.cafe)
        try await store.importCafes([document])
        let final = try #require(try await store.cafe(id: "testcafe")).menuVersion
        #expect(afterPrice == 2)
        #expect(afterMenu == 3)
        #expect(final == 5)
    }

    @Test("a price or café change is served at once, not from a stale cache")
    func priceChange() async throws {
        let store = try store()
        let (initial, menu) = try Fixtures.cafeAndMenu()
        var cafe = initial
        try await store.importCafes([(cafe, menu)])
        _ = try await store.menu(cafeID: "testcafe")
        _ = try await store.cafe(id: "testcafe")
        cafe.defaultLocale = "es_US"
        _ = try await store.saveCafe(cafe)
        #expect(try await store.cafe(id: "testcafe")?.cafe.defaultLocale == "es_US")
        _ = try await store.updateItem(cafeID: "testcafe", itemID: "latte", changes: [.price(510)])
        #expect(try await store.menu(cafeID: "testcafe")?.menu.item("latte")?.price == 510)
    }

    @Test("sold-out marks survive a menu replacement for items that remain, and vanish with their item")
    func soldOutAcrossReplace() async throws {
        let store = try store()
        let (cafe, initial) = try Fixtures.cafeAndMenu()
        var menu = initial
        try await store.importCafes([(cafe, menu)])
        let until = clock.now + 3600
        _ = try await store.updateItem(cafeID: cafe.id, itemID: "latte", changes: [.soldOut(true, until: until)])
        _ = try await store.updateItem(cafeID: cafe.id, itemID: "salad", changes: [.soldOut(true, until: nil)])
        menu.items.removeAll { $0.id == "salad" }
        _ = try await store.replaceMenu(cafeID: cafe.id, with: menu)
        let stored = try #require(try await store.menu(cafeID: cafe.id))
        #expect(stored.soldOut["latte"]?.until == until)
        #expect(stored.soldOut["salad"] == nil)
        _ = try await store.updateItem(cafeID: cafe.id, itemID: "latte", changes: [.soldOut(false, until: nil)])
        #expect(try await store.menu(cafeID: cafe.id)?.soldOut.isEmpty == true)
    }

    @Test("changing an unknown item or café is item_not_found / cafe_not_found and changes nothing")
    func unknownItem() async throws {
        let store = try store()
        try await store.importCafes([try Fixtures.cafeAndMenu()])
        await #expect(throws: CanteenError.notFound(.item, "nope")) {
            try await store.updateItem(cafeID: "testcafe", itemID: "nope", changes: [.price(1)])
        }
        await #expect(throws: CanteenError.notFound(.cafe, "elsewhere")) {
            try await store.updateItem(cafeID: "elsewhere", itemID: "latte", changes: [.price(1)])
        }
        #expect(try await store.cafe(id: "testcafe")?.menuVersion == 1)
    }

    @Test("an import that fails half-way leaves the database as it was")
    func importIsAtomic() async throws {
        let store = try store()
        let first = try Fixtures.cafeAndMenu(id: "first")
        var clash = try Fixtures.cafeAndMenu(id: "second")
        clash.cafe.beaconRegion = first.cafe.beaconRegion
        await #expect(throws: CanteenError.self) { try await store.importCafes([first, clash]) }
        #expect(try await store.cafes().isEmpty)
    }

    @Test("a file database keeps cafés across reopening and is in WAL mode")
    func fileDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canteen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let database = try AppDatabase.open(directory: directory)
            try await CafeStore(database: database).importCafes([try Fixtures.cafeAndMenu()])
            try database.close()
        }
        let reopened = try AppDatabase.open(directory: directory)
        #expect(try await CafeStore(database: reopened).menu(cafeID: "testcafe")?.menu.items.count == 3)
        let mode = try await reopened.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test("money columns are integer minor units")
    func integerMoney() async throws {
        let database = try AppDatabase.inMemory()
        try await CafeStore(database: database).importCafes([try Fixtures.cafeAndMenu()])
        let types = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT typeof(price) FROM menuItem UNION SELECT DISTINCT typeof(priceDelta) FROM modifierOption")
        }
        #expect(types == ["integer"])
    }
}

@Suite("Token store")
struct TokenStoreTests {
    @Test("a created token authenticates with its role and café, and stops after revocation")
    func lifecycle() async throws {
        let database = try AppDatabase.inMemory()
        try await CafeStore(database: database).importCafes([try Fixtures.cafeAndMenu()])
        let store = TokenStore(database: database)
        let (token, secret) = try await store.createToken(role: .kitchen, cafeID: "testcafe", name: "line 1")
        let found = try #require(try await store.authenticate(secret: secret))
        #expect(found.id == token.id)
        #expect(found.role == .kitchen)
        #expect(found.cafeID == "testcafe")
        #expect(try await store.authenticate(secret: secret + "x") == nil)
        try await store.revokeToken(id: token.id)
        #expect(try await store.authenticate(secret: secret) == nil)
        #expect(try await store.tokens().first?.revokedAt != nil)
    }

    @Test("a token authenticated (and so cached) stops working as soon as this store revokes it")
    func revokeAfterCaching() async throws {
        let store = TokenStore(database: try AppDatabase.inMemory())
        let (token, secret) = try await store.createToken(role: .ops, cafeID: nil, name: nil)
        #expect(try await store.authenticate(secret: secret)?.id == token.id)
        #expect(try await store.authenticate(secret: secret)?.id == token.id)
        try await store.revokeToken(id: token.id)
        #expect(try await store.authenticate(secret: secret) == nil)
    }

    @Test("secrets are stored only as hashes")
    func hashed() async throws {
        let database = try AppDatabase.inMemory()
        let store = TokenStore(database: database)
        let (_, secret) = try await store.createToken(role: .ops, cafeID: nil, name: nil)
        let dump = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM accessToken").map { row in
                row.databaseValues.map { "\($0)" }.joined(separator: " ")
            }.joined()
        }
        #expect(!dump.contains(secret))
        #expect(!dump.contains(String(secret.dropFirst(4))))
    }

    @Test("a token cannot be bound to a café that does not exist")
    func unknownCafe() async throws {
        let store = TokenStore(database: try AppDatabase.inMemory())
        await #expect(throws: CanteenError.self) { try await store.createToken(role: .kiosk, cafeID: "nowhere", name: nil) }
    }

    @Test("revoking an unknown token is token_not_found")
    func revokeUnknown() async throws {
        let store = TokenStore(database: try AppDatabase.inMemory())
        await #expect(throws: CanteenError.notFound(.token, "tok_nope")) { try await store.revokeToken(id: "tok_nope") }
    }
}
