import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Pickup windows in café time")
struct PickupWindowTests {
    func cafe(timeZone: String, hours: [Weekday: [LocalTimeRange]], slot: Int = 15, lead: Int = 10) throws -> Cafe {
        var cafe = try Fixtures.cafeAndMenu().cafe
        cafe.timeZone = try CafeTimeZone(timeZone)
        cafe.hours = hours
        cafe.pickup.slotMinutes = slot
        cafe.pickup.leadMinutes = lead
        return cafe
    }

    func span(_ start: String, _ end: String) -> LocalTimeRange {
        LocalTimeRange(start: LocalTime(parsing: start)!, end: LocalTime(parsing: end)!)
    }

    func iso(_ date: Date, _ zone: String) -> String { RFC3339.string(date, timeZone: TimeZone(identifier: zone)!) }

    @Test("a Chicago weekday 07:00–19:00 has 48 quarter-hour windows starting at 07:00 CST")
    func ordinaryDay() throws {
        let cafe = try cafe(timeZone: "America/Chicago", hours: [.monday: [span("07:00", "19:00")]])
        let windows = cafe.pickupWindows(on: LocalDate(year: 2026, month: 11, day: 23))
        #expect(windows.count == 48)
        #expect(iso(windows[0].start, "America/Chicago") == "2026-11-23T07:00:00-06:00")
        #expect(iso(windows[47].end, "America/Chicago") == "2026-11-23T19:00:00-06:00")
        #expect(cafe.pickupWindows(on: LocalDate(year: 2026, month: 11, day: 22)).isEmpty)
    }

    @Test("no window starts before now plus the lead time")
    func leadTime() throws {
        let cafe = try cafe(timeZone: "America/Chicago", hours: [.monday: [span("07:00", "19:00")]], lead: 10)
        let offered = cafe.offeredPickupWindows(
            on: LocalDate(year: 2026, month: 11, day: 23),
            now: Fixtures.chicagoMonday(hour: 9, minute: 5))
        #expect(iso(offered[0].start, "America/Chicago") == "2026-11-23T09:15:00-06:00")
    }

    @Test("Chicago spring-forward night: the 01:45 window ends at 03:00 and lasts 15 minutes; nothing starts at 02:xx")
    func chicagoSpringForward() throws {
        let cafe = try cafe(timeZone: "America/Chicago", hours: [.sunday: [span("00:00", "04:00")]])
        let windows = cafe.pickupWindows(on: LocalDate(year: 2026, month: 3, day: 8))
        let starts = windows.map { iso($0.start, "America/Chicago") }
        #expect(starts.contains("2026-03-08T01:45:00-06:00"))
        #expect(!starts.contains { $0.contains("T02:") })
        let quarterToTwo = try #require(
            windows.first { iso($0.start, "America/Chicago") == "2026-03-08T01:45:00-06:00" })
        #expect(iso(quarterToTwo.end, "America/Chicago") == "2026-03-08T03:00:00-05:00")
        #expect(quarterToTwo.end.timeIntervalSince(quarterToTwo.start) == 900)
        #expect(windows.allSatisfy { $0.end.timeIntervalSince($0.start) == 900 })
        #expect(windows.count == 12)
        #expect(iso(windows.last!.end, "America/Chicago") == "2026-03-08T04:00:00-05:00")
    }

    @Test("Chicago fall-back night: the repeated hour is offered twice, told apart by offset")
    func chicagoFallBack() throws {
        let cafe = try cafe(timeZone: "America/Chicago", hours: [.sunday: [span("00:00", "04:00")]])
        let windows = cafe.pickupWindows(on: LocalDate(year: 2026, month: 11, day: 1))
        let starts = windows.map { iso($0.start, "America/Chicago") }
        #expect(starts.contains("2026-11-01T01:00:00-05:00"))
        #expect(starts.contains("2026-11-01T01:00:00-06:00"))
        #expect(windows.count == 20)
        #expect(windows.allSatisfy { $0.end.timeIntervalSince($0.start) == 900 })
    }

    @Test("Paris spring-forward: 02:00–03:00 does not exist, the 01:30 half-hour window ends at 03:00")
    func parisSpringForward() throws {
        let cafe = try cafe(timeZone: "Europe/Paris", hours: [.sunday: [span("00:00", "05:00")]], slot: 30)
        let windows = cafe.pickupWindows(on: LocalDate(year: 2026, month: 3, day: 29))
        let starts = windows.map { iso($0.start, "Europe/Paris") }
        #expect(!starts.contains { $0.contains("T02:") })
        let last = try #require(windows.first { iso($0.start, "Europe/Paris") == "2026-03-29T01:30:00+01:00" })
        #expect(iso(last.end, "Europe/Paris") == "2026-03-29T03:00:00+02:00")
        #expect(windows.count == 8)
    }

    @Test("Paris fall-back: 02:00–03:00 happens twice and both are offered")
    func parisFallBack() throws {
        let cafe = try cafe(timeZone: "Europe/Paris", hours: [.sunday: [span("00:00", "05:00")]], slot: 30)
        let windows = cafe.pickupWindows(on: LocalDate(year: 2026, month: 10, day: 25))
        let starts = windows.map { iso($0.start, "Europe/Paris") }
        #expect(starts.contains("2026-10-25T02:30:00+02:00"))
        #expect(starts.contains("2026-10-25T02:30:00+01:00"))
        #expect(windows.count == 12)
    }

    @Test("local dates and weekdays agree with Calendar in every kind of zone, 1900 to 2100")
    func localDates() throws {
        for zoneID in ["America/Chicago", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu", "Europe/Paris"] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zoneID))
            for step in 0..<400 {
                let instant = Date(timeIntervalSince1970: -2_208_988_800 + Double(step) * 15_778_463.7)
                let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: instant)
                let date = LocalDate(instant, in: calendar)
                #expect(
                    [date.year, date.month, date.day] == [parts.year, parts.month, parts.day], "\(zoneID) \(instant)")
                #expect(date.weekday == Weekday(gregorianWeekday: parts.weekday!), "\(zoneID) \(instant)")
            }
        }
    }

    @Test("remembered windows follow the café: another zone, slot length or hours is another schedule")
    func rememberedSchedules() throws {
        let chicago = try cafe(timeZone: "America/Chicago", hours: [.monday: [span("07:00", "09:00")]])
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let windows = chicago.pickupWindows(on: monday)
        #expect(windows.count == 8)
        #expect(iso(windows[0].start, "America/Chicago") == "2026-11-23T07:00:00-06:00")
        #expect(iso(windows[7].end, "America/Chicago") == "2026-11-23T09:00:00-06:00")
        var tokyo = chicago
        tokyo.timeZone = try CafeTimeZone("Asia/Tokyo")
        #expect(iso(tokyo.pickupWindows(on: monday)[0].start, "Asia/Tokyo") == "2026-11-23T07:00:00+09:00")
        var longer = chicago
        longer.pickup.slotMinutes = 30
        #expect(longer.pickupWindows(on: monday).count == 4)
        var later = chicago
        later.hours = [.monday: [span("08:00", "09:00")]]
        #expect(iso(later.pickupWindows(on: monday)[0].start, "America/Chicago") == "2026-11-23T08:00:00-06:00")
        #expect(chicago.pickupWindows(on: LocalDate(year: 2026, month: 11, day: 24)).isEmpty)
    }

    @Test("dates parse strictly", arguments: ["2026-02-30", "2026-13-01", "26-01-01", "2026-1-1", "today", ""])
    func badDates(text: String) {
        #expect(LocalDate(parsing: text) == nil)
    }
}
