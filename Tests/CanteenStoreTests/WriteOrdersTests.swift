import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import PostgresNIO
import Testing

@testable import CanteenPostgres

/// `WriteOrders`, the statement writing a batch's plain orders at once, run for real on
/// PostgreSQL: what it does when a window has no room left for all of its orders (possible only
/// when another batch took it meanwhile, which the café's lock prevents, so the store suites
/// cannot reach it).
@Suite("PostgreSQL's WriteOrders: a batch's orders in one statement")
struct WriteOrdersTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// A plain order of the test café for `window` (one salad), ready for the statement.
    func prepared(_ id: String, window: PickupWindow, cafe: Cafe, menu: Menu) -> PostgresOrderStore.Prepared {
        let now = clock.now
        let price = Money(minorUnits: 750, currency: cafe.currency)
        let line = OrderLine(
            itemID: "salad", names: LocalizedText(["en": "Salad"]), station: "cold", quantity: 1, options: [],
            note: nil, unitPrice: 750, lineTotal: 750)
        let plan = KitchenPlan(
            tickets: [], pickup: window, scheduled: true, timing: KitchenTiming(cafe: cafe, menu: menu),
            load: .idle(at: now))
        let request = OrderRequest(
            cafeID: cafe.id, lines: [OrderLineRequest(itemID: "salad", quantity: 1, options: [], note: nil)],
            pickup: .window(start: window.start), customer: Customer(name: id, userID: nil))
        return PostgresOrderStore.Prepared(
            placement: PostgresOrderStore.Placement(request: request, key: nil, now: now, trace: nil),
            order: Order(
                id: id, cafeID: cafe.id, number: 0, customer: request.customer, pickup: window, lines: [line],
                subtotal: price, tax: Money(minorUnits: 0, currency: cafe.currency), total: price, createdAt: now,
                tickets: [], readyAt: plan.readyAt),
            plan: plan, units: 1, capacity: cafe.pickup.capacity,
            slotKey: PostgresPickupCapacityStore.key(window.start),
            localDate: LocalDate(now, in: cafe.calendar).description,
            lines: [
                PostgresOrderStore.StoredLine(
                    orderid: id, position: 0, itemid: "salad", names: #"{"en":"Salad"}"#, station: "cold", quantity: 1,
                    unitprice: 750, linetotal: 750, options: "[]", note: nil)
            ], stock: [], stockDate: LocalDate(now, in: cafe.calendar))
    }

    @Test("one text for one order or several, signed in or not (a prepared statement's text never changes)")
    func oneText() throws {
        let (cafe, menu) = try Fixtures.cafeAndMenu()
        let start = Fixtures.chicagoMonday(hour: 9, minute: 15)
        let window = PickupWindow(start: start, end: start + 900)
        var signedIn = prepared("ord_b", window: window, cafe: cafe, menu: menu)
        signedIn = PostgresOrderStore.Prepared(
            placement: PostgresOrderStore.Placement(
                request: signedIn.placement.request,
                key: IdempotencyKey(tokenID: "tok_1", key: "k", requestHash: Data([1])), now: clock.now, trace: nil),
            order: signedIn.order, plan: signedIn.plan, units: 3, capacity: 40, slotKey: signedIn.slotKey,
            localDate: signedIn.localDate, lines: signedIn.lines, stock: [], stockDate: signedIn.stockDate)
        let one = PostgresOrderStore.WriteOrders([prepared("ord_a", window: window, cafe: cafe, menu: menu)])
        let several = PostgresOrderStore.WriteOrders([
            prepared("ord_a", window: window, cafe: cafe, menu: menu), signedIn,
        ])
        for statement in [one, several] {
            #expect(statement.query.sql == PostgresOrderStore.WriteOrders.sql)
            #expect(try statement.makeBindings().count == 20)
        }
        #expect(PostgresOrderStore.WriteOrders.sql.contains("INSERT INTO customerOrder"))
    }

    @Test(
        "a window without room for all its orders takes none of them; the others are numbered in the batch's order",
        arguments: StoreBackend.postgresOnly)
    func fullWindow(backend: StoreBackend) async throws {
        try await backend.withServers(1, clock: clock, onDisk: false) { servers in
            let (cafe, menu) = try Fixtures.cafeAndMenu()
            try await servers[0].stores.cafes.importCafes([(cafe, menu)])
            let database = try #require(servers[0].stores.postgresDatabase)
            let start = Fixtures.chicagoMonday(hour: 9, minute: 15)
            let full = PickupWindow(start: start, end: start + 900)
            let open = PickupWindow(start: start + 900, end: start + 1800)
            // One place left in the first window (capacity 20), taken meanwhile by nobody the batch saw.
            try await servers[0].execute(
                "INSERT INTO pickupSlot (cafeId, start, used) VALUES ('testcafe', \(Int64(start.timeIntervalSince1970)), 19)"
            )
            let batch = [
                prepared("ord_a", window: full, cafe: cafe, menu: menu),
                prepared("ord_b", window: open, cafe: cafe, menu: menu),
                prepared("ord_c", window: full, cafe: cafe, menu: menu),
                prepared("ord_d", window: open, cafe: cafe, menu: menu),
            ]
            let written = try await database.transaction { connection in
                var numbers: [String: Int] = [:]
                for row in try await connection.rows(PostgresOrderStore.WriteOrders(batch), logger: database.logger) {
                    let (id, number) = try row.decode((String, Int).self)
                    numbers[id] = number
                }
                return numbers
            }
            #expect(written == ["ord_b": 1, "ord_d": 2])
            #expect(
                try await servers[0].integer(
                    "SELECT used FROM pickupSlot WHERE start = \(Int64(start.timeIntervalSince1970))") == 19)
            #expect(
                try await servers[0].integer(
                    "SELECT used FROM pickupSlot WHERE start = \(Int64(start.timeIntervalSince1970) + 900)") == 2)
            #expect(try await servers[0].integer("SELECT last FROM orderNumber") == 2)
            #expect(try await servers[0].count("customerOrder") == 2)
            #expect(
                try await servers[0].integer("SELECT COUNT(*) FROM orderLine WHERE orderId IN ('ord_b', 'ord_d')") == 2)
            #expect(try await servers[0].count("orderLine") == 2)
            // The store reads them back whole.
            let b = try #require(try await servers[0].stores.orders.order(id: "ord_b"))
            #expect(b.number == 1 && b.lines.map(\.itemID) == ["salad"] && b.total.minorUnits == 750)
            #expect(b.customer == Customer(name: "ord_b", userID: nil))
        }
    }
}
