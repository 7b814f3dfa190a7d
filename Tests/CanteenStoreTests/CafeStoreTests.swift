import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Testing

@Suite("Café store, on SQLite and PostgreSQL")
struct CafeStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    @Test(
        "a café row whose zone, currency or capacity unit does not parse is an error naming the row",
        arguments: StoreBackend.available,
        [
            ("timeZone", "'Mars/Olympus'"), ("currency", "'XXQ'"), ("pickupCapacityUnit", "'plates'"),
            ("names", "'not json'"),
        ])
    func corruptRows(backend: StoreBackend, corruption: (column: String, value: String)) async throws {
        let (column, value) = corruption
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
            try await store.importCafes([try Fixtures.cafeAndMenu()])
            try await server.execute("UPDATE cafe SET \(column) = \(value)")
            await #expect {
                _ = try await store.cafes()
            } throws: { error in
                let error = try #require(error as? CanteenError)
                return error.code == .storedDataInvalid && error.message.contains("testcafe")
                    && (error.message.contains(value.trimmingCharacters(in: ["'"])) || error.message.contains(column))
            }
        }
    }

    @Test(
        "a token row with an unknown role, or a beacon row with a broken identity, is an error naming the row",
        arguments: StoreBackend.available)
    func corruptTokenAndBeaconRows(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let tokens = server.stores.tokens
            let (token, secret) = try await tokens.createToken(role: .kiosk, cafeID: nil, name: "counter")
            try await server.execute("UPDATE accessToken SET role = 'root'")
            await #expect {
                _ = try await tokens.authenticate(secret: secret)
            } throws: { error in
                let error = try #require(error as? CanteenError)
                return error.code == .storedDataInvalid && error.message.contains(token.id)
                    && error.message.contains("root")
            }
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            try await server.execute(
                """
                INSERT INTO beacon (uuid, major, minor, cafeId, label, measuredPower) VALUES ('not-a-uuid', 1, 2, 'testcafe', '', -59)
                """)
            await #expect {
                _ = try await server.stores.beacons.beacons()
            } throws: { error in
                let error = try #require(error as? CanteenError)
                return error.code == .storedDataInvalid && error.message.contains("not-a-uuid")
            }
        }
    }

    @Test("an imported café reads back with the same configuration and menu", arguments: StoreBackend.available)
    func importRoundTrip(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
            let document = try Fixtures.cafeAndMenu()
            try await store.importCafes([document])
            let stored = try #require(try await store.menu(cafeID: "testcafe"))
            #expect(stored.cafe == document.cafe)
            #expect(stored.menu == document.menu)
            #expect(stored.version == 1)
            #expect(try await store.cafes().map(\.cafe.id) == ["testcafe"])
        }
    }

    @Test("every change moves the menu version forward, re-imports included", arguments: StoreBackend.available)
    func versions(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
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
    }

    @Test("a price or café change is served at once, not from a stale cache", arguments: StoreBackend.available)
    func priceChange(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
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
    }

    @Test(
        "a café or menu changed by another server (or process) is served by this one, its cache following the change",
        arguments: StoreBackend.available)
    func changeOnAnotherServer(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            let (first, second) = (servers[0].stores, servers[1].stores)
            try await withChangeWatchers(servers) {
                var (cafe, menu) = try Fixtures.cafeAndMenu()
                try await first.cafes.importCafes([(cafe, menu)])
                #expect(try await second.cafes.cafe(id: "testcafe")?.cafe.defaultLocale == "en_US")
                cafe.defaultLocale = "es_US"
                _ = try await first.cafes.saveCafe(cafe)
                try await eventually("the second server still serves the café as it was") {
                    try await second.cafes.cafe(id: "testcafe")?.cafe.defaultLocale == "es_US"
                }
                menu.items[0].price = 999
                _ = try await first.cafes.replaceMenu(cafeID: "testcafe", with: menu)
                #expect(try await second.cafes.menu(cafeID: "testcafe")?.menu.items[0].price == 999)
            }
        }
    }

    @Test(
        "sold-out marks survive a menu replacement for items that remain, and vanish with their item",
        arguments: StoreBackend.available)
    func soldOutAcrossReplace(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
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
    }

    @Test(
        "changing an unknown item or café is item_not_found / cafe_not_found and changes nothing",
        arguments: StoreBackend.available)
    func unknownItem(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
            try await store.importCafes([try Fixtures.cafeAndMenu()])
            await #expect(throws: CanteenError.notFound(.item, "nope")) {
                try await store.updateItem(cafeID: "testcafe", itemID: "nope", changes: [.price(1)])
            }
            await #expect(throws: CanteenError.notFound(.cafe, "elsewhere")) {
                try await store.updateItem(cafeID: "elsewhere", itemID: "latte", changes: [.price(1)])
            }
            #expect(try await store.cafe(id: "testcafe")?.menuVersion == 1)
        }
    }

    @Test("an import that fails half-way leaves the database as it was", arguments: StoreBackend.available)
    func importIsAtomic(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.cafes
            let first = try Fixtures.cafeAndMenu(id: "first")
            var clash = try Fixtures.cafeAndMenu(id: "second")
            clash.cafe.beaconRegion = first.cafe.beaconRegion
            await #expect(throws: CanteenError.self) { try await store.importCafes([first, clash]) }
            #expect(try await store.cafes().isEmpty)
        }
    }

    @Test(
        "servers starting together on an empty database import the sample cafés once", arguments: StoreBackend.available
    )
    func importOnce(backend: StoreBackend) async throws {
        try await backend.withServers(3, clock: clock, onDisk: true) { servers in
            let documents = [try Fixtures.cafeAndMenu(), try Fixtures.cafeAndMenu(id: "othercafe", major: 901)]
            let imported = try await withThrowingTaskGroup(of: Bool.self) { group in
                for server in servers {
                    let cafes = server.stores.cafes
                    group.addTask { try await cafes.importCafesIfEmpty(documents) }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(imported.filter { $0 }.count == 1)
            #expect(try await servers[0].stores.cafes.cafes().map(\.menuVersion) == [1, 1])
        }
    }

    @Test("money columns are integer minor units", arguments: StoreBackend.available)
    func integerMoney(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            switch backend {
            case .sqlite:
                let types = try await #require(server.sqlite).writer.read { db in
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT DISTINCT typeof(price) FROM menuItem UNION SELECT DISTINCT typeof(priceDelta) FROM modifierOption
                            """)
                }
                #expect(types == ["integer"])
            case .postgres:
                let nonInteger = try await server.integer(
                    """
                    SELECT COUNT(*) FROM information_schema.columns
                    WHERE table_schema = current_schema() AND column_name IN ('price', 'pricedelta', 'subtotal', 'tax', 'total',
                        'unitprice', 'linetotal') AND data_type <> 'bigint'
                    """)
                #expect(nonInteger == 0)
            }
        }
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
}
