import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import Testing

@Suite("Audit differences and report rules")
struct AuditAndReportRulesTests {
    @Test("differences name changed members by path and array elements by id; unchanged ones are left out")
    func differences() {
        let before: JSONValue = [
            "pickup": ["capacity": 20, "slotMinutes": 15],
            "items": [["id": "latte", "price": 450], ["id": "salad", "price": 750]],
            "languages": ["en", "es"],
        ]
        let after: JSONValue = [
            "pickup": ["capacity": 25, "slotMinutes": 15],
            "items": [["id": "salad", "price": 750], ["id": "latte", "price": 475], ["id": "soup", "price": 500]],
            "languages": ["en"],
        ]
        #expect(
            AuditChange.differences(before: before, after: after) == [
                AuditChange(field: "items[latte].price", before: 450, after: 475),
                AuditChange(field: "items[soup]", before: nil, after: ["id": "soup", "price": 500]),
                AuditChange(field: "items.order", before: ["latte", "salad"], after: ["salad", "latte"]),
                AuditChange(field: "languages", before: ["en", "es"], after: ["en"]),
                AuditChange(field: "pickup.capacity", before: 20, after: 25),
            ])
        #expect(AuditChange.differences(before: before, after: before).isEmpty)
    }

    @Test("a thing created or removed differs in each of its top-level fields")
    func createdAndRemoved() {
        let thing: JSONValue = ["role": "kiosk", "name": .null]
        #expect(
            AuditChange.differences(before: nil, after: thing) == [
                AuditChange(field: "name", before: nil, after: .null),
                AuditChange(field: "role", before: nil, after: "kiosk"),
            ])
        #expect(AuditChange.differences(before: thing, after: nil).map(\.field) == ["name", "role"])
    }

    @Test("changes survive the stored form, absent before/after told apart from null")
    func storedForm() throws {
        let changes = [
            AuditChange(field: "a", before: nil, after: .null), AuditChange(field: "b", before: 1, after: nil),
        ]
        #expect(try AuditChange.stored(AuditChange.storedText(changes), entryID: 1) == changes)
        #expect(throws: CanteenError.self) { try AuditChange.stored("{}", entryID: 2) }
    }

    @Test("percentiles are nearest-rank: the smallest value with at least that share at or below it")
    func percentiles() {
        #expect(([] as [Int64]).nearestRank(50) == nil)
        #expect([7].nearestRank(50) == 7)
        #expect([1, 2, 3, 4].nearestRank(50) == 2)
        #expect(Array(1...10).nearestRank(90) == 9)
        #expect(Array(1...11).nearestRank(90) == 10)
        #expect([3, 9].nearestRank(100) == 9)
    }

    @Test("a report covers from..to, both included, at most 366 days, from not after to")
    func period() throws {
        let period = try ReportPeriod(
            from: LocalDate(year: 2026, month: 2, day: 27), to: LocalDate(year: 2026, month: 3, day: 1))
        #expect(period.dates.map(\.description) == ["2026-02-27", "2026-02-28", "2026-03-01"])
        #expect(throws: CanteenError.self) {
            try ReportPeriod(from: LocalDate(year: 2026, month: 3, day: 2), to: LocalDate(year: 2026, month: 3, day: 1))
        }
        #expect(throws: CanteenError.self) {
            try ReportPeriod(from: LocalDate(year: 2025, month: 1, day: 1), to: LocalDate(year: 2026, month: 1, day: 2))
        }
    }

    @Test(
        "hours of the day are the café's wall clock: both 01:00 hours of a fall-back night are hour 1 (America/Chicago)"
    )
    func dstHours() throws {
        let zone = try #require(TimeZone(identifier: "America/Chicago"))
        let period = try ReportPeriod(
            from: LocalDate(year: 2026, month: 11, day: 1),
            to: LocalDate(year: 2026, month: 11, day: 1))
        let day = LocalDate(year: 2026, month: 11, day: 1)
        // 06:15Z is 01:15 CDT, 07:15Z is 01:15 CST; 08:45Z is 02:45 CST.
        let midnightUTC: TimeInterval = 1_793_491_200
        let buckets = [(6, 15), (7, 15), (8, 45)].map { (hour: Int, minute: Int) -> SalesBucket in
            let start = Date(timeIntervalSince1970: midnightUTC + TimeInterval(hour * 3600 + minute * 60))
            return SalesBucket(
                localDate: day, start: start, currency: "USD", cancelled: false, orders: 1, items: 1,
                total: 100)
        }
        let report = SalesReport.byTime(buckets, grouping: .hour, period: period, timeZone: zone, currency: "USD")
        #expect(report.rows[1].sold == SalesFigures(orders: 2, items: 2, amount: 200))
        #expect(report.rows[2].sold.orders == 1)
        #expect(report.rows.map(\.sold.orders).reduce(0, +) == 3)
    }

    @Test("a café that changed currency gets a row per currency, its own currency first")
    func currencies() throws {
        let period = try ReportPeriod(
            from: LocalDate(year: 2026, month: 11, day: 3),
            to: LocalDate(year: 2026, month: 11, day: 3))
        let day = LocalDate(year: 2026, month: 11, day: 3)
        let start = Date(timeIntervalSince1970: 1_793_664_000)
        let buckets = [
            SalesBucket(
                localDate: day, start: start, currency: "EUR", cancelled: false, orders: 1, items: 1, total: 300),
            SalesBucket(
                localDate: day, start: start, currency: "USD", cancelled: false, orders: 2, items: 2, total: 900),
        ]
        let report = SalesReport.byTime(
            buckets, grouping: .day, period: period, timeZone: TimeZone(identifier: "UTC")!,
            currency: "USD")
        #expect(report.rows.map(\.currency) == ["USD", "EUR"])
        #expect(report.rows.map(\.sold.amount) == [900, 300])
    }
}
