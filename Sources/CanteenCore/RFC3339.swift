import Foundation

/// RFC 3339 timestamps (`2026-11-22T09:30:00-06:00`, fractional seconds optional).
public enum RFC3339 {
    /// The instant, or nil when `text` is not an RFC 3339 date-time with an offset.
    public static func parse(_ text: String) -> Date? {
        guard text.count <= 40, text.contains("T") || text.contains("t") else { return nil }
        let plain = Date.ISO8601FormatStyle(includingFractionalSeconds: false)
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? plain.parse(text)) ?? (try? fractional.parse(text))
    }

    /// `2026-11-22T09:30:00-06:00` in `timeZone` (whole seconds; `Z` for UTC), as
    /// `Date.ISO8601FormatStyle` writes it, without building a style for every instant.
    public static func string(_ date: Date, timeZone: TimeZone) -> String {
        string(date, offsetSeconds: timeZone.secondsFromGMT(for: date), timeZone: timeZone)
    }

    /// `2026-11-22T15:30:00Z`: the date in UTC, whole seconds (`JSONEncoder`'s `.iso8601`).
    public static func utcSeconds(_ date: Date) -> String {
        string(date, offsetSeconds: 0, timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// `timeZone` is only built for the rare fallback through Foundation.
    private static func string(_ date: Date, offsetSeconds offset: Int, timeZone: @autoclosure () -> TimeZone) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        // Years 1–9999 in whole-minute offsets; anything else goes through Foundation.
        guard interval.isFinite, abs(interval) < 2.5e11, offset % 60 == 0 else {
            return Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: timeZone()).format(date)
        }
        let local = Int64(interval) + Int64(offset)
        let days = local.floorDivided(by: 86_400)
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        guard (1...9999).contains(year) else {
            return Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: timeZone()).format(date)
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if offset == 0 {
            text += "Z"
        } else {
            let minutes = Int64(abs(offset) / 60)
            text += (offset < 0 ? "-" : "+") + "\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
        }
        return text
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.utf8.count >= width ? text : String(repeating: "0", count: width - text.utf8.count) + text
    }

    // MARK: - UTC with microseconds

    /// `2026-11-22T04:36:31.123456Z` from Unix microseconds (any Int64, before 1970 included).
    public static func utcMicroseconds(unixMicroseconds: Int64) -> String {
        let seconds = unixMicroseconds.floorDivided(by: 1_000_000)
        let micros = unixMicroseconds - seconds * 1_000_000
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(micros, 6))Z"
    }

    /// `2026-11-22T04:36:31.123456Z`: the date in UTC, rounded to the microsecond.
    public static func utcMicroseconds(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let clamped = micros.isFinite ? max(Double(Int64.min / 2), min(Double(Int64.max / 2), micros)) : 0
        return utcMicroseconds(unixMicroseconds: Int64(clamped))
    }

    /// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civilDate(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    /// Division rounding towards negative infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
