import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenPostgres
import CanteenStore
import CanteenTestSupport
import Crypto
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("PostgreSQL: migrations under a lock, canteen db copy")
struct PostgresOnlyTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// A fresh empty database on the test server, dropped after `body`.
    func withEmptyDatabase(_ body: (PostgresURL) async throws -> Void) async throws {
        let admin = try #require(StoreBackend.postgresURL)
        let name = "canteen_copy_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await PostgresDatabase.createDatabase(String(name), on: admin)
        do {
            try await body(admin.with(database: String(name)))
        } catch {
            try? await PostgresDatabase.dropDatabase(String(name), on: admin)
            throw error
        }
        try await PostgresDatabase.dropDatabase(String(name), on: admin)
    }

    @Test(
        "three servers starting together on an empty database migrate it once",
        .enabled(if: StoreBackend.postgresURL != nil))
    func migrateOnce() async throws {
        try await withEmptyDatabase { url in
            let servers = (0..<3).map { _ in
                CanteenStores.open(postgres: url, cardKey: nil, maximumConnections: 2, logger: StoreBackend.quietLogger)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for server in servers {
                    group.addTask { try await server.withDatabase { _ = try await $0.cafes.cafes() } }
                }
                try await group.waitForAll()
            }
            try await CanteenStores.open(
                postgres: url, cardKey: nil, maximumConnections: 2, logger: StoreBackend.quietLogger
            ).withDatabase { stores in
                let database = try #require(stores.postgresDatabase)
                // Every migration once (6: the sign-in sessions of issue 29, kitchen timing of issue 30; more as others are added).
                let newest = try await database.integer(unsafeSQL: "SELECT MAX(version) FROM canteenMigration")
                #expect(try await database.integer(unsafeSQL: "SELECT COUNT(*) FROM canteenMigration") == newest)
                #expect((newest ?? 0) >= 6)
                // One key for every server, made once.
                #expect(try await database.integer(unsafeSQL: "SELECT COUNT(*) FROM serverKey") == 1)
            }
        }
    }

    // MARK: - db copy

    /// A SQLite data dir with a bit of everything: two cafés, orders (one cancelled, one
    /// moved), an idempotency record and a key stored before v5, preferences, beacons, tokens, a
    /// user token, a card (hashed with the data dir's key), a card enrolment, a coupon redeemed
    /// by an order, order events, a webhook endpoint with a delivery and an attempt.
    func filledDataDirectory(_ directory: URL) async throws -> (order: Order, token: String, couponCode: String) {
        let stores = try CanteenStores.open(dataDirectory: directory, clock: clock.closure)
        defer { try? stores.sqliteDatabase?.close() }
        try await stores.cafes.importCafes([
            try Fixtures.cafeAndMenu(), try Fixtures.cafeAndMenu(id: "othercafe", major: 901),
        ])
        let (_, secret) = try await stores.tokens.createToken(role: .kiosk, cafeID: "testcafe", name: "counter")
        let (revoked, _) = try await stores.tokens.createToken(role: .ops, cafeID: nil, name: nil)
        try await stores.tokens.revokeToken(id: revoked.id)
        guard
            case .placed(let order) = try await stores.orders.placeOrder(
                OrderStoreTests.request(["latte", "salad"], userID: "ana"), key: OrderStoreTests.key("copied"))
        else {
            throw CanteenError(.internal, code: .internalError, message: "not placed")
        }
        _ = try await stores.tickets.moveTicket(id: order.tickets[0].id, to: .preparing)
        guard case .placed(let cancelled) = try await stores.orders.placeOrder(OrderStoreTests.request(), key: nil)
        else {
            throw CanteenError(.internal, code: .internalError, message: "not placed")
        }
        _ = try await stores.orders.cancelOrder(id: cancelled.id)
        _ = try await stores.preferences.update(
            userID: "ana", changes: ["defaultLocation": .set("testcafe")], condition: nil)
        try await stores.preferences.setSiteDefault(key: "app.banner", value: ["on": true])
        _ = try await stores.beacons.saveBeacon(
            BeaconRegistration(
                uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 900, minor: 7,
                cafeID: "testcafe",
                label: "Grill", measuredPower: -61))
        _ = try await stores.cards.register(
            CardRegistration(userID: "ana", displayName: "Ana", technology: .type2),
            identifier: try CardIdentifier("04A25C1A2B3C80"))
        _ = try await stores.cards.createEnrolment(
            userID: "bo", displayName: "Bo", expiresAt: clock.now.addingTimeInterval(900))
        _ = try await stores.tokens.createToken(TokenSpec(role: .user, userID: "ana", name: "ana's phone"))
        let (endpoint, _) = try await stores.webhooks.createEndpoint(
            WebhookRegistration(url: "http://127.0.0.1:9/hook", cafeID: nil, events: ["order.placed"]))
        _ = try await stores.coupons.createCoupon(
            Coupon(
                id: "COPY1", label: "Latte free", benefit: .itemFree(itemID: "latte"), cafeID: "testcafe",
                validFrom: nil,
                validUntil: nil, maxUses: 5, createdAt: clock.now))
        var couponRequest = OrderStoreTests.request(["latte"])
        couponRequest.couponID = "COPY1"
        guard case .placed = try await stores.orders.placeOrder(couponRequest, key: nil) else {
            throw CanteenError(.internal, code: .internalError, message: "not placed")
        }
        let round = try await stores.webhooks.deliveryRound(recording: [], claim: 10, now: clock.now, lease: 30)
        let job = try #require(round.jobs.first)
        _ = try await stores.webhooks.deliveryRound(
            recording: [
                WebhookAttemptResult(
                    endpointID: endpoint.id, eventSequence: job.event.sequence, leasedUntil: job.leasedUntil,
                    attempt: WebhookAttempt(
                        attemptedAt: clock.now, statusCode: 500, latencyMilliseconds: 3, error: nil),
                    next: .retry(at: clock.now.addingTimeInterval(60)))
            ], claim: 0, now: clock.now, lease: 30)
        try await stores.sqliteDatabase!.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO idempotencyKey (tokenId, key, requestHash, status, body, orderId, createdAt, contentLanguage)
                    VALUES ('tok_old', 'legacy', X'01', 201, CAST('{"id":"ord_legacy"}' AS BLOB), NULL, ?, 'en')
                    """, arguments: [clock.now])
        }
        return (order, secret, try stores.coupons.code(couponID: "COPY1"))
    }

    @Test(
        "canteen db copy moves every table; the copy serves the same orders, tokens, cards, feed and replays",
        .enabled(if: StoreBackend.postgresURL != nil))
    func copyEverything() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (order, secret, couponCode) = try await filledDataDirectory(directory)
        let source = try CanteenStores.open(dataDirectory: directory, clock: clock.closure)
        let sourceFeed = try await source.tickets.ticketChanges(cafeID: "testcafe", after: 0, station: nil, limit: 500)
        let sourceCafes = try await source.cafes.cafes()
        let sourcePreferences = try await source.preferences.merged(userID: "ana")
        let sourceEvents = try await source.orderEvents.events(after: 0, limit: 100)
        let sourceDeliveries = try await source.webhooks.deliveries(
            endpointID: try #require(try await source.webhooks.endpoints().first?.id),
            limit: 10)
        try source.sqliteDatabase?.close()

        try await withEmptyDatabase { url in
            let progress = ProgressLog()
            let copied = try await DatabaseCopy(source: directory, target: url, pageSize: 2).run { table, done, total in
                progress.record(table, done, total)
            }
            #expect(copied.map(\.table) == DatabaseCopy.tables)
            #expect(copied.first { $0.table == "customerOrder" }?.rows == 3)
            #expect(progress.finished("orderLine") == 4)

            // No CANTEEN_CARD_KEY: the data dir's card.key was copied into the database.
            let target = CanteenStores.open(
                postgres: url, cardKey: nil, logger: StoreBackend.quietLogger, clock: clock.closure)
            try await target.withDatabase { stores in
                #expect(try await stores.cafes.cafes() == sourceCafes)
                #expect(try await stores.orders.order(id: order.id)?.lines == order.lines)
                #expect(try await stores.tokens.authenticate(secret: secret)?.cafeID == "testcafe")
                #expect(try await stores.tokens.tokens().count == 3)
                #expect(try await stores.tokens.tokens().contains { $0.role == .user && $0.userID == "ana" })
                #expect(try await stores.coupons.couponID(code: couponCode) == "COPY1")
                #expect(try await stores.coupons.coupon(id: "COPY1")?.uses == 1)
                #expect(try await stores.orderEvents.events(after: 0, limit: 100) == sourceEvents)
                let endpoint = try #require(try await stores.webhooks.endpoints().first)
                #expect(try await stores.webhooks.deliveries(endpointID: endpoint.id, limit: 10) == sourceDeliveries)
                #expect(try await stores.preferences.merged(userID: "ana") == sourcePreferences)
                #expect(
                    try await stores.cards.identify(
                        technology: .type2, identifier: try CardIdentifier("04A25C1A2B3C80")
                    )
                    .userID == "ana")
                let feed = try await stores.tickets.ticketChanges(
                    cafeID: "testcafe", after: 0, station: nil, limit: 500)
                #expect(feed == sourceFeed)
                let replay = try await stores.orders.placeOrder(
                    OrderStoreTests.request(["latte", "salad"], userID: "ana"),
                    key: OrderStoreTests.key("copied"))
                #expect(
                    replay
                        == .replayed(
                            try #require(try await stores.orders.order(id: order.id)).asPlaced,
                            answerLanguage: "en"))
                let legacy = try await stores.orders.placeOrder(
                    OrderStoreTests.request(),
                    key: IdempotencyKey(tokenID: "tok_old", key: "legacy", requestHash: Data([1])))
                #expect(legacy == .replayedAnswer(Data(#"{"id":"ord_legacy"}"#.utf8), contentLanguage: "en"))
                guard case .placed(let next) = try await stores.orders.placeOrder(OrderStoreTests.request(), key: nil)
                else {
                    Issue.record("no order placed after the copy")
                    return
                }
                #expect(next.number == 4)
                #expect(next.tickets[0].sequence == sourceFeed.cursor + 1)
            }

            let again = await #expect(throws: CanteenError.self) {
                _ = try await DatabaseCopy(source: directory, target: url).run { _, _, _ in }
            }
            #expect(again?.message.contains("already holds data") == true)
        }
    }

    @Test(
        "a copy that fails part-way (a row that does not convert) leaves the target empty and names the row",
        .enabled(if: StoreBackend.postgresURL != nil))
    func interruptedCopyLeavesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await filledDataDirectory(directory)
        do {
            let database = try AppDatabase.open(directory: directory)
            try await database.writer.write { try $0.execute(sql: "UPDATE card SET createdAt = 'last tuesday'") }
            try database.close()
        }
        try await withEmptyDatabase { url in
            let error = await #expect(throws: CanteenError.self) {
                _ = try await DatabaseCopy(source: directory, target: url).run { _, _, _ in }
            }
            #expect(error?.code == .storedDataInvalid)
            #expect(error?.message.contains("card") == true)
            #expect(error?.message.contains("createdAt") == true)
            try await CanteenStores.open(postgres: url, cardKey: nil, logger: StoreBackend.quietLogger).withDatabase {
                stores in
                let database = try #require(stores.postgresDatabase)
                for table in DatabaseCopy.tables {
                    #expect(try await database.integer(unsafeSQL: "SELECT COUNT(*) FROM \(table)") == 0, "\(table)")
                }
                #expect(try await database.integer(unsafeSQL: "SELECT value FROM feedSequence") == 0)
            }
        }
    }
}

/// What a copy reported, per table.
final class ProgressLog: Sendable {
    private let reports = Mutex<[String: [Int]]>([:])

    func record(_ table: String, _ done: Int, _ total: Int) {
        reports.withLock { $0[table, default: []].append(done) }
        _ = total
    }

    /// The last count reported for `table`.
    func finished(_ table: String) -> Int? { reports.withLock { $0[table]?.last } }
}
