import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Reports, on SQLite and PostgreSQL: sums of the orders placed, café-local and DST-correct, exact minor units")
struct ReportStoreTests {
    /// Chicago's clocks fall back on Sunday 2026-11-01 at 02:00 CDT (07:00Z) to 01:00 CST.
    static func utc(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
    }

    let clock = TestClock(utc(1, 5, 30))

    /// The test café open around the clock every day, pickup from now on (no lead time).
    static func allDayCafe() throws -> (cafe: Cafe, menu: Menu) {
        var document = Fixtures.cafeDocument()
        let allDay: JSONValue = .array([.object(["open": "00:00", "close": "24:00"])])
        document["hours"] = .object(Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0.rawValue, allDay) }))
        document["pickup"] = ["slotMinutes": 15, "capacity": 2, "capacityUnit": "orders", "leadMinutes": 0]
        document["dayParts"] = .array([])
        if case .array(var items)? = document["items"] {
            items = items.map { item in
                guard case .object(var object) = item else { return item }
                object.removeValue(forKey: "dayParts")
                return .object(object)
            }
            document["items"] = .array(items)
        }
        return try CafeDocument.parse(.object(document))
    }

    /// Places an order at `at` with `lines` (item, quantity), picked up in the window starting at
    /// `pickup` (a quarter hour; `at` itself when nil).
    func place(
        _ stores: CanteenStores, _ lines: [(String, Int)], at instant: Date,
        pickup: Date? = nil
    ) async throws -> Order {
        clock.set(instant)
        let request = OrderRequest(
            cafeID: "testcafe",
            lines: lines.map {
                OrderLineRequest(
                    itemID: $0.0, quantity: $0.1, options: $0.0 == "latte" ? ["small"] : [],
                    note: nil)
            },
            pickup: .window(start: pickup ?? instant),
            customer: Customer(name: "Ada", userID: nil))
        guard case .placed(let order) = try await stores.orders.placeOrder(request, key: nil) else {
            throw CanteenError(.internal, code: .internalError, message: "not placed")
        }
        return order
    }

    /// Moves a ticket to ready at `at` (through preparing).
    func ready(_ stores: CanteenStores, _ ticket: Ticket, at instant: Date) async throws {
        clock.set(instant.addingTimeInterval(-1))
        _ = try await stores.tickets.moveTicket(id: ticket.id, to: .preparing)
        clock.set(instant)
        _ = try await stores.tickets.moveTicket(id: ticket.id, to: .ready)
    }

    @Test(
        "sales per hour, per day and per item add up to the orders placed, the repeated DST hour counted once as an hour",
        arguments: StoreBackend.available)
    func sales(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Self.allDayCafe()])
            let cafe = try Self.allDayCafe().cafe
            let a = try await place(stores, [("latte", 1)], at: Self.utc(1, 5, 30))  // 00:30 CDT
            let b = try await place(stores, [("salad", 1)], at: Self.utc(1, 6, 30))  // 01:30 CDT
            let c = try await place(stores, [("salad", 2)], at: Self.utc(1, 7, 30))  // 01:30 CST
            let d = try await place(stores, [("salad", 1)], at: Self.utc(2, 5, 30))  // 23:30 CST, Nov 1
            let e = try await place(stores, [("latte", 1)], at: Self.utc(2, 6, 30))  // 00:30 CST, Nov 2
            _ = try await stores.orders.cancelOrder(id: e.id)
            let period = try ReportPeriod(
                from: LocalDate(year: 2026, month: 11, day: 1),
                to: LocalDate(year: 2026, month: 11, day: 2))
            let buckets = try await stores.reports.salesBuckets(cafeID: "testcafe", period: period)

            let byDay = SalesReport.byTime(
                buckets, grouping: .day, period: period, timeZone: cafe.timeZoneValue,
                currency: "USD")
            #expect(byDay.rows.map(\.key) == ["2026-11-01", "2026-11-02"])
            let kept = [a, b, c, d]
            #expect(
                byDay.rows[0].sold
                    == SalesFigures(orders: 4, items: 5, amount: kept.map(\.total.minorUnits).reduce(0, +)))
            #expect(byDay.rows[0].cancelled == .zero)
            #expect(byDay.rows[1].sold == .zero)
            #expect(byDay.rows[1].cancelled == SalesFigures(orders: 1, items: 1, amount: e.total.minorUnits))

            let byHour = SalesReport.byTime(
                buckets, grouping: .hour, period: period, timeZone: cafe.timeZoneValue,
                currency: "USD")
            #expect(byHour.rows.count == 24)
            #expect(byHour.rows[0].sold == SalesFigures(orders: 1, items: 1, amount: a.total.minorUnits))
            #expect(byHour.rows[0].cancelled.orders == 1)
            #expect(
                byHour.rows[1].sold
                    == SalesFigures(orders: 2, items: 3, amount: b.total.minorUnits + c.total.minorUnits))
            #expect(byHour.rows[23].sold.orders == 1)
            #expect(byHour.rows.map(\.sold.orders).reduce(0, +) == 4)

            let byItem = SalesReport.byItem(
                try await stores.reports.itemSales(cafeID: "testcafe", period: period))
            #expect(byItem.rows.map(\.key) == ["salad", "latte"])
            #expect(byItem.rows[0].sold == SalesFigures(orders: 3, items: 4, amount: 4 * 750))
            #expect(byItem.rows[0].names?.translations["en"] == "Garden salad")
            #expect(byItem.rows[1].sold == SalesFigures(orders: 1, items: 1, amount: 450))
            #expect(byItem.rows[1].cancelled == SalesFigures(orders: 1, items: 1, amount: 450))

            let nov2 = try ReportPeriod(
                from: LocalDate(year: 2026, month: 11, day: 2),
                to: LocalDate(year: 2026, month: 11, day: 2))
            let onlyNov2 = try await stores.reports.salesBuckets(cafeID: "testcafe", period: nov2)
            #expect(onlyNov2.map(\.orders).reduce(0, +) == 1, "the 23:30 order belongs to the 1st in the café")
        }
    }

    @Test(
        "kitchen times per station from placed to ready, and orders ready by their window's start",
        arguments: StoreBackend.available)
    func kitchen(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Self.allDayCafe()])
            let start = Self.utc(10, 15)
            let minutes = { (count: Int) in start.addingTimeInterval(TimeInterval(count * 60)) }
            // Three bar tickets ready 2, 4 and 15 minutes after their order (the last after its
            // window started); two cold tickets never ready.
            let first = try await place(stores, [("latte", 1)], at: start, pickup: minutes(30))
            let second = try await place(stores, [("latte", 1)], at: minutes(1), pickup: minutes(15))
            let third = try await place(stores, [("latte", 1), ("salad", 1)], at: minutes(2), pickup: minutes(15))
            try await ready(stores, first.tickets[0], at: minutes(2))
            try await ready(stores, second.tickets[0], at: minutes(5))
            try await ready(stores, third.tickets[0], at: minutes(17))
            _ = try await place(stores, [("salad", 1)], at: minutes(18), pickup: minutes(30))
            let period = try ReportPeriod(
                from: LocalDate(year: 2026, month: 11, day: 10),
                to: LocalDate(year: 2026, month: 11, day: 10))
            let figures = try await stores.reports.kitchenFigures(cafeID: "testcafe", period: period)
            let report = KitchenReport(tickets: figures.tickets, orders: figures.orders)
            let bar = try #require(report.stations.first { $0.station == "bar" })
            #expect(bar.tickets == 3 && bar.ready == 3)
            #expect(bar.p50Seconds == 240 && bar.p90Seconds == 900 && bar.maxSeconds == 900)
            #expect(bar.readyByWindowStart == 2)
            let cold = try #require(report.stations.first { $0.station == "cold" })
            #expect(cold.tickets == 2 && cold.ready == 0 && cold.p50Seconds == nil)
            // Orders: the first two became ready (their only ticket), the third waits for its salad.
            #expect(report.orders == OrderReadiness(orders: 4, cancelled: 0, ready: 2, readyByWindowStart: 2))
        }
    }

    @Test(
        "the windows of a day with capacity, units used, orders taken and orders refused as full",
        arguments: StoreBackend.available)
    func windows(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Self.allDayCafe()])
            let start = Self.utc(10, 15)
            let first = try await place(stores, [("latte", 1)], at: start)
            _ = try await place(stores, [("salad", 1)], at: start)
            await #expect(throws: CanteenError.self) {
                _ = try await place(stores, [("salad", 1)], at: start)
            }
            try await stores.reports.recordRefusal(cafeID: "testcafe", windowStart: first.pickup.start)
            _ = try await stores.orders.cancelOrder(id: first.id)
            let figures = try await stores.reports.windowFigures(
                cafeID: "testcafe", start: start,
                end: start.addingTimeInterval(3600))
            #expect(figures[first.pickup.start] == WindowFigures(orders: 1, cancelled: 1, used: 1, refused: 1))
            let cafe = try Self.allDayCafe().cafe
            let report = WindowsReport(
                cafe: cafe, windows: cafe.pickupWindows(on: LocalDate(year: 2026, month: 11, day: 10)), figures: figures
            )
            #expect(report.rows.count == 96)
            #expect(report.rows.first { $0.window.start == first.pickup.start }?.figures.refused == 1)
        }
    }
}
