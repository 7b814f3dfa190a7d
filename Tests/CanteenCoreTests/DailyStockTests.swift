import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Limited dishes: daily quantities and café-local days")
struct DailyStockTests {
    static func cafe(timeZone: String) throws -> Cafe {
        try CafeDocument.parse(.object(Fixtures.cafeDocument(timeZone: timeZone))).cafe
    }

    static func instant(_ text: String) -> Date { RFC3339.parse(text)! }

    static func special(quantity: Int? = 40) throws -> MenuItem {
        var item = try Fixtures.cafeAndMenu().menu.items[2]
        item.dailyQuantity = quantity
        return item
    }

    @Test("a day is the café's own, daylight saving time included (Santiago starts 6 September 2026 at 01:00)")
    func santiagoDays() throws {
        // Chile moves its clocks from 24:00 to 01:00 on the first Sunday of September: that day has no midnight.
        let santiago = try Self.cafe(timeZone: "America/Santiago")
        #expect(DailyStock.day(of: Self.instant("2026-09-06T03:59:59Z"), at: santiago).description == "2026-09-05")
        #expect(DailyStock.day(of: Self.instant("2026-09-06T04:00:00Z"), at: santiago).description == "2026-09-06")
        // The batch of the 5th is whole again when the 6th starts, at 01:00 local (UTC−3).
        #expect(
            DailyStock.restocksAt(after: Self.instant("2026-09-05T20:00:00Z"), at: santiago)
                == Self.instant("2026-09-06T04:00:00Z"))
        #expect(
            DailyStock.restocksAt(after: Self.instant("2026-09-06T04:00:00Z"), at: santiago)
                == Self.instant("2026-09-07T03:00:00Z"))
    }

    @Test("a 25-hour day (Chicago falls back on 1 November 2026) restocks at the next local midnight")
    func chicagoFallBack() throws {
        let chicago = try Self.cafe(timeZone: "America/Chicago")
        #expect(DailyStock.day(of: Self.instant("2026-11-02T05:30:00Z"), at: chicago).description == "2026-11-01")
        #expect(
            DailyStock.restocksAt(after: Self.instant("2026-11-01T12:00:00Z"), at: chicago)
                == Self.instant("2026-11-02T06:00:00Z"))
        // Tokyo has no daylight saving time: midnight is 15:00 UTC every day.
        let tokyo = try Self.cafe(timeZone: "Asia/Tokyo")
        #expect(
            DailyStock.restocksAt(after: Self.instant("2026-11-01T14:59:59Z"), at: tokyo)
                == Self.instant("2026-11-01T15:00:00Z"))
        #expect(DailyStock.day(of: Self.instant("2026-11-01T15:00:00Z"), at: tokyo).description == "2026-11-02")
    }

    @Test("an order takes what it asks while enough is left; none left is sold_out, too few is not_enough_left")
    func taking() throws {
        let item = try Self.special()
        #expect(try DailyStock.take(3, of: item, from: 40, line: 0) == 37)
        #expect(try DailyStock.take(2, of: item, from: 2, line: 0) == 0)
        #expect {
            try DailyStock.take(1, of: item, from: 0, line: 0)
        } throws: { error in
            let error = error as? CanteenError
            return error?.code == .itemUnavailable && error?.parameters["reason"] == "sold_out"
                && error?.kind == .conflict && error?.field == "lines[0].itemId"
        }
        #expect {
            try DailyStock.take(3, of: item, from: 2, line: 1)
        } throws: { error in
            let error = error as? CanteenError
            return error?.code == .notEnoughLeft && error?.field == "lines[1].quantity"
                && error?.parameters["remaining"] == "2" && error?.kind == .conflict
        }
    }

    @Test("what is left: the whole batch until something is taken that day; unlimited items are not counted")
    func remaining() throws {
        #expect(DailyStock.remaining(of: try Self.special(), stored: nil) == 40)
        #expect(DailyStock.remaining(of: try Self.special(), stored: 7) == 7)
        #expect(DailyStock.remaining(of: try Self.special(quantity: nil), stored: 7) == nil)
    }

    @Test("an order's lines of one limited item are taken together, named by the first line")
    func wanted() throws {
        var menu = try Fixtures.cafeAndMenu().menu
        menu.items[2].dailyQuantity = 40
        let lines = [
            OrderLineRequest(itemID: "latte", quantity: 1, options: ["small"], note: nil),
            OrderLineRequest(itemID: "salad", quantity: 2, options: [], note: nil),
            OrderLineRequest(itemID: "salad", quantity: 3, options: [], note: "no dressing"),
        ]
        let wanted = DailyStock.wanted(by: lines, in: menu)
        #expect(wanted.map(\.item.id) == ["salad"])
        #expect(wanted.map(\.quantity) == [5])
        #expect(wanted.map(\.line) == [1])
    }

    @Test("setting what is left: only for a limited dish on the menu, for the café's day now")
    func setting() throws {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        menu.items[2].dailyQuantity = 40
        cafe.timeZone = try CafeTimeZone("Asia/Tokyo")
        let stored = CafeMenu(cafe: cafe, menu: menu, soldOut: [:], version: 1)
        let stock = try DailyStock.setting(12, of: "salad", in: stored, now: Self.instant("2026-11-01T15:30:00Z"))
        #expect(
            stock
                == ItemStock(
                    cafeID: cafe.id, itemID: "salad", date: LocalDate(year: 2026, month: 11, day: 2),
                    dailyQuantity: 40, remaining: 12))
        #expect(throws: CanteenError.notFound(.item, "soup")) {
            try DailyStock.setting(1, of: "soup", in: stored, now: Self.instant("2026-11-01T15:30:00Z"))
        }
        #expect { try DailyStock.setting(1, of: "latte", in: stored, now: .now) } throws: { error in
            (error as? CanteenError)?.code == .invalidField
        }
    }

    @Test("café files: prepSeconds, dailyQuantity, stations and fireByPrepTime are read and checked")
    func cafeFiles() throws {
        var document = Fixtures.cafeDocument()
        document["stations"] = [["id": "grill", "prepSeconds": 480], ["id": "bar", "prepSeconds": 90]]
        document["fireByPrepTime"] = false
        document["display"] = ["ticketAllowanceMinutes": 4]
        guard case .array(var items)? = document["items"], case .object(var salad) = items[2] else {
            Issue.record("the fixture changed")
            return
        }
        salad["prepSeconds"] = 240
        salad["dailyQuantity"] = 40
        items[2] = .object(salad)
        document["items"] = .array(items)
        let (cafe, menu) = try CafeDocument.parse(.object(document))
        #expect(
            cafe.kitchen
                == KitchenSettings(
                    stations: [
                        StationSettings(id: "grill", prepSeconds: 480),
                        StationSettings(id: "bar", prepSeconds: 90),
                    ],
                    fireByPrepTime: false))
        #expect(cafe.display.ticketAllowanceMinutes == 4)
        #expect(menu.item("salad")?.prepSeconds == 240)
        #expect(menu.item("salad")?.dailyQuantity == 40)
        #expect(menu.item("latte")?.prepSeconds == nil)

        // Bad values are named by their path, and nothing is returned
        document["stations"] = [["id": "grill", "prepSeconds": 480], ["id": "grill", "prepSeconds": -1]]
        document["fireByPrepTime"] = "yes"
        salad["dailyQuantity"] = 0
        salad["prepSeconds"] = .double(1.5)
        items[2] = .object(salad)
        document["items"] = .array(items)
        #expect {
            try CafeDocument.parse(.object(document))
        } throws: { error in
            let paths = Set((error as? ValidationError)?.problems.map(\.path) ?? [])
            return paths.isSuperset(of: [
                "stations[1].id", "stations[1].prepSeconds", "fireByPrepTime",
                "items[2].dailyQuantity", "items[2].prepSeconds",
            ])
        }
    }
}
