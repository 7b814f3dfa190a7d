import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Money and currencies")
struct MoneyTests {
    @Test("ISO 4217 exponents: JPY 0, USD 2, KWD 3, CLF 4")
    func exponents() throws {
        #expect(try Currency(code: "JPY").minorUnits == 0)
        #expect(try Currency(code: "USD").minorUnits == 2)
        #expect(try Currency(code: "KWD").minorUnits == 3)
        #expect(try Currency(code: "CLF").minorUnits == 4)
    }

    @Test("unknown and non-monetary codes are rejected", arguments: ["XYZ", "usd", "", "XAU", "XTS", "DOLLAR"])
    func unknownCodes(code: String) {
        #expect(throws: CanteenError.self) { try Currency(code: code) }
    }

    @Test("adding beyond Int64 reports amount_overflow instead of trapping")
    func overflow() throws {
        let big = Money(minorUnits: .max, currency: .usd)
        #expect(throws: CanteenError.self) { try big.adding(Money(minorUnits: 1, currency: .usd)) }
        #expect(throws: CanteenError.self) { try big.multiplied(by: 2) }
        #expect(try Money(minorUnits: 450, currency: .usd).multiplied(by: 3).minorUnits == 1350)
    }

    @Test("adding two currencies is refused")
    func mismatch() {
        #expect(throws: CanteenError.self) {
            try Money(minorUnits: 1, currency: .usd).adding(Money(minorUnits: 1, currency: .jpy))
        }
    }
}

@Suite("Availability in café time")
struct AvailabilityTests {
    @Test("a breakfast item is available at 08:00 and not at 11:00 Chicago time")
    func dayPart() throws {
        let (cafe, menu) = try Fixtures.cafeAndMenu()
        let burrito = try #require(menu.item("burrito"))
        func availability(at instant: Date) -> Unavailability? {
            menu.unavailability(of: burrito, soldOut: nil, localTime: cafe.localMoment(of: instant).time, at: instant)
        }
        #expect(availability(at: Fixtures.chicagoMonday(hour: 8)) == nil)
        #expect(availability(at: Fixtures.chicagoMonday(hour: 11)) == .outsideDayPart)
    }

    @Test("a sold-out mark with an end stops applying at that instant")
    func soldOutUntil() throws {
        let (cafe, menu) = try Fixtures.cafeAndMenu()
        let salad = try #require(menu.item("salad"))
        let noon = Fixtures.chicagoMonday(hour: 12)
        func availability(_ mark: SoldOut, at instant: Date) -> Unavailability? {
            menu.unavailability(of: salad, soldOut: mark, localTime: cafe.localMoment(of: instant).time, at: instant)
        }
        let mark = SoldOut(itemID: "salad", until: noon)
        #expect(availability(mark, at: noon - 60) == .soldOut)
        #expect(availability(mark, at: noon) == nil)
        #expect(availability(SoldOut(itemID: "salad", until: nil), at: noon) == .soldOut)
    }

    @Test("opening hours are judged in the café's time zone")
    func openingHours() throws {
        let (cafe, _) = try Fixtures.cafeAndMenu()
        #expect(cafe.isOpen(at: Fixtures.chicagoMonday(hour: 7)))
        #expect(!cafe.isOpen(at: Fixtures.chicagoMonday(hour: 6, minute: 59)))
        #expect(!cafe.isOpen(at: Fixtures.chicagoMonday(hour: 19)))
    }
}
