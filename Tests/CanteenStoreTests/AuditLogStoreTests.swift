import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Crypto
import Foundation
import Testing

@Suite("Audit log, on SQLite and PostgreSQL: each kind of change recorded with its transaction, never a secret")
struct AuditLogStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
    static let ops = AuditActor(tokenID: "tok_ops", tokenName: "ops desk", role: "ops", userID: nil)

    static func entry(_ action: String, _ kind: String, _ id: String, cafe: String? = "testcafe") -> AuditEntry {
        AuditEntry(actor: ops, action: action, targetKind: kind, targetID: id, cafeID: cafe)
    }

    /// Runs `body` on a fresh database holding the test café.
    func withStores(_ backend: StoreBackend, _ body: (TestStores) async throws -> Void) async throws {
        try await backend.withStores(clock: clock) { server in
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            try await body(server)
        }
    }

    /// Every entry, newest first.
    func all(_ server: TestStores) async throws -> [AuditEntry] {
        try await server.stores.audit.auditEntries(AuditQuery(limit: AuditQuery.maximumLimit)).entries
    }

    func change(_ entry: AuditEntry?, _ field: String) -> AuditChange? { entry?.changes.first { $0.field == field } }

    @Test(
        "saving a café records who, when, what and the fields it changed, before and after",
        arguments: StoreBackend.available)
    func cafeSaved(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            var cafe = try Fixtures.cafeAndMenu().cafe
            cafe.pickup.capacity = 35
            clock.advance(by: 60)
            _ = try await server.stores.cafes.saveCafe(cafe, audit: Self.entry("cafe.save", "cafe", "testcafe"))
            let entries = try await all(server)
            let saved = try #require(entries.first)
            #expect(entries.count == 1)
            #expect(saved.action == "cafe.save")
            #expect(saved.actor == Self.ops)
            #expect(saved.at == clock.now)
            #expect(saved.targetKind == "cafe" && saved.targetID == "testcafe" && saved.cafeID == "testcafe")
            #expect(saved.changes == [AuditChange(field: "pickup.capacity", before: 20, after: 35)])
            #expect(saved.id > 0)
        }
    }

    @Test(
        "saving a café records its stations and the networks of its building that changed",
        arguments: StoreBackend.available)
    func cafeKitchenAndNetworksSaved(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            // Given the test café without stations or networks
            var cafe = try Fixtures.cafeAndMenu().cafe
            // When a station and a network are added and firing by prep time is turned off
            cafe.kitchen.stations = [StationSettings(id: "grill", prepSeconds: 300)]
            cafe.kitchen.fireByPrepTime = false
            cafe.networks = [try IPAddressRange.network("10.20.0.0/16")]
            _ = try await server.stores.cafes.saveCafe(cafe, audit: Self.entry("cafe.save", "cafe", "testcafe"))
            // Then the entry names each, before and after
            let saved = try #require(try await all(server).first)
            #expect(
                saved.changes == [
                    AuditChange(field: "fireByPrepTime", before: true, after: false),
                    AuditChange(field: "networks", before: .array([]), after: .array([.string("10.20.0.0/16")])),
                    AuditChange(
                        field: "stations[grill]", before: nil,
                        after: .object(["id": .string("grill"), "prepSeconds": .int(300)])),
                ])
        }
    }

    @Test("deleting a café records its configuration as it was", arguments: StoreBackend.available)
    func cafeDeleted(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            try await server.stores.cafes.deleteCafe(
                id: "testcafe", audit: Self.entry("cafe.delete", "cafe", "testcafe"))
            let deleted = try #require(try await all(server).first)
            #expect(change(deleted, "currency") == AuditChange(field: "currency", before: "USD", after: nil))
            #expect(change(deleted, "pickup")?.after == nil)
        }
    }

    @Test("replacing a menu records the item fields that changed, by item id", arguments: StoreBackend.available)
    func menuReplaced(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            var menu = try Fixtures.cafeAndMenu().menu
            menu.items[2].price = 800
            menu.items.removeFirst()
            _ = try await server.stores.cafes.replaceMenu(
                cafeID: "testcafe", with: menu,
                audit: Self.entry("menu.replace", "menu", "testcafe"))
            let replaced = try #require(try await all(server).first)
            #expect(
                change(replaced, "items[salad].price")
                    == AuditChange(
                        field: "items[salad].price", before: 750,
                        after: 800))
            #expect(change(replaced, "items[latte]")?.before != nil)
            #expect(change(replaced, "items[latte]")?.after == nil)
            #expect(replaced.changes.count == 2)
        }
    }

    @Test(
        "a price change and a sold-out mark record the item's price and mark before and after",
        arguments: StoreBackend.available)
    func itemChanged(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let cafes = server.stores.cafes
            _ = try await cafes.updateItem(
                cafeID: "testcafe", itemID: "latte", changes: [.price(475)],
                audit: Self.entry("item.change", "item", "latte"))
            let until = clock.now.addingTimeInterval(3600)
            var kitchen = Self.entry("item.change", "item", "latte")
            kitchen.actor = AuditActor(tokenID: "tok_kds", tokenName: "line", role: "kitchen", userID: nil)
            _ = try await cafes.updateItem(
                cafeID: "testcafe", itemID: "latte", changes: [.soldOut(true, until: until)],
                audit: kitchen)
            let entries = try await all(server)
            #expect(entries.count == 2)
            #expect(entries[1].changes == [AuditChange(field: "price", before: 450, after: 475)])
            #expect(entries[0].actor.role == "kitchen")
            #expect(
                entries[0].changes == [
                    AuditChange(field: "soldOut", before: false, after: true),
                    AuditChange(field: "soldOutUntil", before: .null, after: .string(RFC3339.utcSeconds(until))),
                ])
        }
    }

    @Test(
        "registering and removing a beacon records it, with the café it belongs to",
        arguments: StoreBackend.available)
    func beacons(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
            let beacon = BeaconRegistration(
                uuid: uuid, major: 900, minor: 7, cafeID: "testcafe", label: "Till",
                measuredPower: -61)
            try await server.stores.beacons.saveBeacon(
                beacon,
                audit: Self.entry(
                    "beacon.save", "beacon",
                    beacon.identityText))
            try await server.stores.beacons.deleteBeacon(
                uuid: uuid, major: 900, minor: 7,
                audit: Self.entry(
                    "beacon.remove", "beacon", beacon.identityText,
                    cafe: nil))
            let entries = try await all(server)
            #expect(change(entries[1], "measuredPower") == AuditChange(field: "measuredPower", before: nil, after: -61))
            #expect(change(entries[0], "label") == AuditChange(field: "label", before: "Till", after: nil))
            #expect(entries[0].cafeID == "testcafe")
        }
    }

    @Test("creating and revoking a token records it, never its secret", arguments: StoreBackend.available)
    func tokens(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let (token, secret) = try await server.stores.tokens.createToken(
                TokenSpec(role: .kitchen, cafeID: "testcafe", name: "line 2"),
                audit: Self.entry("token.create", "token", ""))
            try await server.stores.tokens.revokeToken(
                id: token.id,
                audit: Self.entry(
                    "token.revoke", "token", token.id,
                    cafe: nil))
            try await server.stores.tokens.revokeToken(
                id: token.id,
                audit: Self.entry(
                    "token.revoke", "token", token.id,
                    cafe: nil))
            let entries = try await all(server)
            #expect(entries.count == 2, "revoking a revoked token changes nothing and records nothing")
            #expect(entries[1].targetID == token.id)
            #expect(change(entries[1], "role")?.after == "kitchen")
            #expect(change(entries[0], "revokedAt")?.before == .null)
            #expect(entries[0].cafeID == "testcafe")
            let stored = try await server.integer("SELECT COUNT(*) FROM auditEntry WHERE changes LIKE '%\(secret)%'")
            #expect(stored == 0)
        }
    }

    @Test(
        "webhook endpoints: creation, secret rotation, redelivery and deletion are recorded, never a secret",
        arguments: StoreBackend.available)
    func webhooks(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let webhooks = server.stores.webhooks
            let registration = try WebhookRegistration(
                url: "https://hooks.example.com/canteen", cafeID: "testcafe",
                events: ["order.ready"])
            let (endpoint, secret) = try await webhooks.createEndpoint(
                registration,
                audit: Self.entry("webhook.create", "webhook", ""))
            let (_, rotated) = try await webhooks.rotateSecret(
                endpointID: endpoint.id,
                audit: Self.entry(
                    "webhook.rotate_secret", "webhook",
                    endpoint.id))
            try await webhooks.deleteEndpoint(
                id: endpoint.id, audit: Self.entry("webhook.delete", "webhook", endpoint.id))
            let entries = try await all(server)
            #expect(entries.map(\.action) == ["webhook.delete", "webhook.rotate_secret", "webhook.create"])
            #expect(entries[2].targetID == endpoint.id)
            #expect(change(entries[2], "url")?.after == "https://hooks.example.com/canteen")
            #expect(entries[1].changes == [AuditChange(field: "secret", before: nil, after: nil)])
            for secret in [secret, rotated] {
                #expect(
                    try await server.integer("SELECT COUNT(*) FROM auditEntry WHERE changes LIKE '%\(secret)%'") == 0)
            }
        }
    }

    @Test(
        "cards: registration, a one-time code and removal are recorded, never the code or the card's identifier",
        arguments: StoreBackend.available)
    func cards(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let cards = server.stores.cards
            let identifier = try CardIdentifier("04A25C1A2B3C80")
            _ = try await cards.register(
                CardRegistration(userID: "ada", displayName: "Ada", technology: .type2),
                identifier: identifier, audit: Self.entry("card.register", "card", "", cafe: nil))
            let code = try await cards.createEnrolment(
                userID: "ada", displayName: nil,
                expiresAt: clock.now.addingTimeInterval(900),
                audit: Self.entry("card.enrolment", "user", "ada", cafe: nil))
            let listed = try await cards.cards(userID: "ada")
            #expect(listed.count == 1)
            let card = try #require(listed.first)
            #expect(card.registration.technology == .type2)
            #expect(card.id.hasPrefix("card_"))
            try await cards.removeCard(
                userID: "ada", cardID: card.id,
                audit: Self.entry(
                    "card.remove", "card", card.id,
                    cafe: nil))
            #expect(try await cards.cards(userID: "ada").isEmpty)
            let entries = try await all(server)
            #expect(entries.map(\.action) == ["card.remove", "card.enrolment", "card.register"])
            #expect(entries[2].targetID == card.id)
            #expect(change(entries[0], "userId") == AuditChange(field: "userId", before: "ada", after: nil))
            for secret in [code, identifier.hex, EnrolmentCode.normalized(code)] {
                #expect(
                    try await server.integer("SELECT COUNT(*) FROM auditEntry WHERE changes LIKE '%\(secret)%'") == 0)
            }
        }
    }

    @Test("coupons: creation and withdrawal are recorded", arguments: StoreBackend.available)
    func coupons(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let coupon = Coupon(
                id: "WELCOME", label: "Welcome", benefit: .amountOff(Money(minorUnits: 200, currency: .usd)),
                cafeID: "testcafe", validFrom: nil, validUntil: nil, maxUses: 5, createdAt: clock.now)
            _ = try await server.stores.coupons.createCoupon(
                coupon, audit: Self.entry("coupon.create", "coupon", "WELCOME"))
            _ = try await server.stores.coupons.revokeCoupon(
                id: "WELCOME",
                audit: Self.entry("coupon.revoke", "coupon", "WELCOME"))
            let entries = try await all(server)
            #expect(change(entries[1], "amountOff")?.after == ["amount": 200, "currency": "USD"])
            #expect(change(entries[0], "revokedAt")?.after == .string(RFC3339.utcSeconds(clock.now)))
        }
    }

    @Test(
        "setting what is left of a limited dish records the count before and after; a refused count nothing",
        arguments: StoreBackend.available)
    func remaining(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try KitchenStoreTests.timedCafe(salads: 3)])
            _ = try await stores.dailyStock.setRemaining(
                cafeID: "testcafe", itemID: "salad", remaining: 2,
                audit: Self.entry("item.remaining", "item", "salad"))
            _ = try await stores.dailyStock.setRemaining(
                cafeID: "testcafe", itemID: "salad", remaining: 0,
                audit: Self.entry("item.remaining", "item", "salad"))
            await #expect(throws: CanteenError.self) {
                try await stores.dailyStock.setRemaining(
                    cafeID: "testcafe", itemID: "latte", remaining: 1,
                    audit: Self.entry("item.remaining", "item", "latte"))
            }
            let entries = try await all(server)
            #expect(
                entries.map(\.changes) == [
                    [AuditChange(field: "remaining", before: 2, after: 0)],
                    [AuditChange(field: "remaining", before: 3, after: 2)],
                ])
        }
    }

    @Test(
        "site preferences: setting and removing a default are recorded with the value before and after",
        arguments: StoreBackend.available)
    func sitePreferences(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let preferences = server.stores.preferences
            try await preferences.setSiteDefault(
                key: "defaultLocation", value: "testcafe",
                audit: Self.entry(
                    "site_preference.set", "site_preference",
                    "defaultLocation", cafe: nil))
            try await preferences.setSiteDefault(
                key: "defaultLocation", value: "nearest",
                audit: Self.entry(
                    "site_preference.set", "site_preference",
                    "defaultLocation", cafe: nil))
            try await preferences.removeSiteDefault(
                key: "defaultLocation",
                audit: Self.entry(
                    "site_preference.remove", "site_preference",
                    "defaultLocation", cafe: nil))
            let entries = try await all(server)
            #expect(entries[2].changes == [AuditChange(field: "value", before: nil, after: "testcafe")])
            #expect(entries[1].changes == [AuditChange(field: "value", before: "testcafe", after: "nearest")])
            #expect(entries[0].changes == [AuditChange(field: "value", before: "nearest", after: nil)])
        }
    }

    @Test("a change that fails records nothing", arguments: StoreBackend.available)
    func failedChangesRecordNothing(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            let stores = server.stores
            await #expect(throws: CanteenError.self) {
                try await stores.tokens.createToken(
                    TokenSpec(role: .kiosk, cafeID: "nowhere"),
                    audit: Self.entry("token.create", "token", ""))
            }
            await #expect(throws: CanteenError.self) {
                try await stores.cafes.updateItem(
                    cafeID: "testcafe", itemID: "nothing", changes: [.price(1)],
                    audit: Self.entry("item.change", "item", "nothing"))
            }
            await #expect(throws: CanteenError.self) {
                try await stores.beacons.deleteBeacon(
                    uuid: UUID(), major: 1, minor: 1,
                    audit: Self.entry("beacon.remove", "beacon", "x"))
            }
            // Fails after the café row was written (its beacon is the test café's): the transaction,
            // entry included, is rolled back.
            await #expect(throws: CanteenError.self) {
                let clash = try Fixtures.cafeAndMenu(id: "third", major: 900).cafe
                _ = try await stores.cafes.saveCafe(clash, audit: Self.entry("cafe.save", "cafe", "third"))
            }
            let third = try await stores.cafes.cafe(id: "third")
            #expect(third == nil)
            await #expect(throws: CanteenError.self) {
                try await stores.preferences.removeSiteDefault(
                    key: "defaultLocation",
                    audit: Self.entry(
                        "site_preference.remove",
                        "site_preference", "defaultLocation"))
            }
            let entries = try await all(server)
            let rows = try await server.count("auditEntry")
            #expect(entries.isEmpty)
            #expect(rows == 0)
        }
    }

    @Test("the log pages newest first by cursor, and filters by café and time", arguments: StoreBackend.available)
    func paging(backend: StoreBackend) async throws {
        try await withStores(backend) { server in
            for price in Int64(1)...5 {
                clock.advance(by: 60)
                _ = try await server.stores.cafes.updateItem(
                    cafeID: "testcafe", itemID: "salad", changes: [.price(price)],
                    audit: Self.entry("item.change", "item", "salad"))
            }
            _ = try await server.stores.coupons.createCoupon(
                Coupon(
                    id: "ANY", label: "Any café", benefit: .itemFree(itemID: "salad"), cafeID: nil, validFrom: nil,
                    validUntil: nil, maxUses: 1, createdAt: clock.now),
                audit: Self.entry("coupon.create", "coupon", "ANY", cafe: nil))
            let audit = server.stores.audit
            let first = try await audit.auditEntries(AuditQuery(cafeID: "testcafe", limit: 2))
            #expect(first.entries.map { change($0, "price")?.after } == [5, 4])
            let cursor = try #require(first.next)
            let second = try await audit.auditEntries(AuditQuery(cafeID: "testcafe", after: cursor, limit: 2))
            #expect(second.entries.map { change($0, "price")?.after } == [3, 2])
            let last = try await audit.auditEntries(AuditQuery(cafeID: "testcafe", after: second.next, limit: 2))
            #expect(last.entries.map { change($0, "price")?.after } == [1])
            #expect(last.next == nil)
            #expect(try await audit.auditEntries(AuditQuery(limit: 10)).entries.count == 6)
            let start = Fixtures.chicagoMonday(hour: 9, minute: 2)
            let window = try await audit.auditEntries(AuditQuery(from: start, to: start.addingTimeInterval(120)))
            #expect(window.entries.map { change($0, "price")?.after } == [3, 2])
        }
    }
}
