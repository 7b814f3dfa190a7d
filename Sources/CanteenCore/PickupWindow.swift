import CanteenJSON
import Foundation

/// A span of real time in which orders are collected: `start ..< end`.
public struct PickupWindow: Hashable, Sendable, Codable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

/// A calendar day in a café's own time zone (`2026-11-23`).
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; nil when malformed or not a real date.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day), year >= 1970
        else { return nil }
        // A day past the month's end (2026-02-30) comes back from the round trip as another date.
        let days = RFC3339.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day))
        guard RFC3339.civilDate(daysSinceEpoch: days) == (Int64(year), Int64(month), Int64(day)) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The café-local date of `instant` in `calendar`'s time zone: the zone's offset at that
    /// instant, then plain day arithmetic (this runs for every order, in the single writer).
    public init(_ instant: Date, in calendar: Calendar) {
        let interval = instant.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, abs(interval) < 2.5e11 else {
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
            return
        }
        let local = Int64(interval) + Int64(calendar.timeZone.secondsFromGMT(for: instant))
        let (year, month, day) = RFC3339.civilDate(unixSeconds: local)
        self.init(year: Int(year), month: Int(month), day: Int(day))
    }

    /// The day of the week (1970-01-01 was a Thursday).
    public var weekday: Weekday {
        let days = RFC3339.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day))
        let thursdayFirst: [Weekday] = [.thursday, .friday, .saturday, .sunday, .monday, .tuesday, .wednesday]
        return thursdayFirst[Int(((days % 7) + 7) % 7)]
    }

    public var description: String {
        let pad = RFC3339.pad
        return "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))"
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

// MARK: - Pickup windows

/// The pickup windows a café offers on one of its days.
///
/// Windows are consecutive spans of `slotMinutes` of real time, laid from each opening time
/// and ending no later than the closing time. So on a spring-forward night no window starts
/// at a wall time that does not exist (in Chicago the 01:45 window ends at 03:00, fifteen
/// minutes later), and on a fall-back night the repeated hour is offered twice, each window a
/// real `slotMinutes` with its own capacity, told apart by their UTC offsets.
extension Cafe {
    /// Every window of `date` (café-local), in order, ignoring lead time and capacity.
    /// (`PickupWindowPlanner` remembers them.)
    public func pickupWindows(on date: LocalDate) -> [PickupWindow] {
        let spans = hours[date.weekday] ?? []
        guard !spans.isEmpty else { return [] }
        return layPickupWindows(on: date, spans: spans)
    }

    private func layPickupWindows(on date: LocalDate, spans: [LocalTimeRange]) -> [PickupWindow] {
        let step = TimeInterval(pickup.slotMinutes * 60)
        var windows: [PickupWindow] = []
        for span in spans {
            guard let open = instant(of: span.start, on: date), let close = instant(of: span.end, on: date) else {
                continue
            }
            var start = open
            while start + step <= close {
                windows.append(PickupWindow(start: start, end: start + step))
                start += step
            }
        }
        return windows
    }

    /// The windows of `date` a guest may still choose at `now`: starting at or after now + lead time.
    public func offeredPickupWindows(on date: LocalDate, now: Date) -> [PickupWindow] {
        let earliest = now + TimeInterval(pickup.leadMinutes * 60)
        return pickupWindows(on: date).filter { $0.start >= earliest }
    }

    /// The instant of a wall-clock time on a café-local date (`24:00` is the next midnight).
    /// A wall time skipped by a DST change maps to the instant the clocks jumped to.
    func instant(of time: LocalTime, on date: LocalDate) -> Date? {
        let calendar = self.calendar
        guard let midnight = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))
        else { return nil }
        let dayStart = calendar.startOfDay(for: midnight)
        if time.minutes == 1440 { return calendar.date(byAdding: .day, value: 1, to: dayStart) }
        if time.minutes == 0 { return dayStart }
        var components = DateComponents(
            year: date.year, month: date.month, day: date.day,
            hour: time.hour, minute: time.minute)
        components.timeZone = timeZoneValue
        guard let candidate = calendar.date(from: components) else { return nil }
        // A wall time that does not exist resolves to the instant the clocks jumped.
        let local = calendar.dateComponents([.hour, .minute], from: candidate)
        if local.hour != time.hour || local.minute != time.minute,
            let jump = timeZoneValue.nextDaylightSavingTimeTransition(after: dayStart),
            calendar.isDate(jump, inSameDayAs: dayStart)
        {
            return jump
        }
        return candidate
    }
}
