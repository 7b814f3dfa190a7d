import Foundation

/// RFC 3339 timestamps (`2026-11-22T09:30:00-06:00`, fractional seconds optional).
public enum RFC3339 {
    /// The instant, or nil when `text` is not an RFC 3339 `date-time` (§5.6): exactly
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T` and `Z` in either case, a real calendar
    /// date, an offset within ±23:59, and a leap second (`:60`) only at 23:59 UTC: what JSON
    /// Schema's `format: date-time` accepts, no more and no less.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, _ expected: UInt8...) -> Bool { index < bytes.count && expected.contains(bytes[index]) }
        guard let year = number(0, 4), byte(4, UInt8(ascii: "-")), let month = number(5, 2), byte(7, UInt8(ascii: "-")),
            let day = number(8, 2), byte(10, UInt8(ascii: "T"), UInt8(ascii: "t")), let hour = number(11, 2),
            byte(13, UInt8(ascii: ":")), let minute = number(14, 2), byte(16, UInt8(ascii: ":")),
            let second = number(17, 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, UInt8(ascii: ".")) {
            index += 1
            var scale = 0.1
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { return nil }
        }
        var offset: Int64 = 0
        if byte(index, UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            index += 1
        } else if byte(index, UInt8(ascii: "+"), UInt8(ascii: "-")), let hours = number(index + 1, 2),
            byte(index + 3, UInt8(ascii: ":")), let minutes = number(index + 4, 2), hours < 24, minutes < 60
        {
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let local = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
        if second == 60 {
            // A leap second is the last second of a UTC day.
            let utcMinute = (local - offset).floorDivided(by: 60)
            guard utcMinute - utcMinute.floorDivided(by: 1440) * 1440 == 1439 else { return nil }
        }
        return Date(timeIntervalSince1970: Double(local + second - offset) + fraction)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
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
    private static func string(_ date: Date, offsetSeconds offset: Int, timeZone: @autoclosure () -> TimeZone) -> String
    {
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
        let hasOffset = offset != 0
        return String(unsafeUninitializedCapacity: hasOffset ? 25 : 20) { buffer in
            var at = writeDateTime(year: year, month: month, day: day, secondOfDay: secondOfDay, into: buffer)
            if hasOffset {
                let minutes = Int64(abs(offset) / 60)
                buffer[at] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
                write(minutes / 60, width: 2, into: buffer, at: at + 1)
                buffer[at + 3] = UInt8(ascii: ":")
                write(minutes % 60, width: 2, into: buffer, at: at + 4)
                at += 6
            } else {
                buffer[at] = UInt8(ascii: "Z")
                at += 1
            }
            return at
        }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS` (19 bytes) at the start of `buffer`; returns 19.
    /// `year` is 0–9999.
    @inline(__always)
    private static func writeDateTime(
        year: Int64, month: Int64, day: Int64, secondOfDay: Int64,
        into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        write(year, width: 4, into: buffer, at: 0)
        buffer[4] = UInt8(ascii: "-")
        write(month, width: 2, into: buffer, at: 5)
        buffer[7] = UInt8(ascii: "-")
        write(day, width: 2, into: buffer, at: 8)
        buffer[10] = UInt8(ascii: "T")
        write(secondOfDay / 3600, width: 2, into: buffer, at: 11)
        buffer[13] = UInt8(ascii: ":")
        write(secondOfDay / 60 % 60, width: 2, into: buffer, at: 14)
        buffer[16] = UInt8(ascii: ":")
        write(secondOfDay % 60, width: 2, into: buffer, at: 17)
        return 19
    }

    /// Writes `value` (0 ≤ value < 10^width) as exactly `width` decimal digits at `index`.
    @inline(__always)
    static func write(_ value: Int64, width: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int) {
        var rest = value
        for position in stride(from: index + width - 1, through: index, by: -1) {
            buffer[position] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.utf8.count >= width ? text : String(repeating: "0", count: width - text.utf8.count) + text
    }

    // MARK: - UTC with microseconds

    /// `2026-11-22T04:36:31.123456Z` from Unix microseconds (any Int64, before 1970 included).
    public static func utcMicroseconds(unixMicroseconds: Int64) -> String {
        utcFraction(unixMicroseconds: unixMicroseconds, digits: 6, separator: UInt8(ascii: "T"), zulu: true)
    }

    /// `2026-11-22 04:36:31.123` from Unix microseconds: milliseconds cut (not rounded) from the
    /// microseconds, a space for the `T` and no zone letter, the format GRDB stores a `Date` in;
    /// nil outside the years 0–9999.
    public static func utcStoredMilliseconds(unixMicroseconds: Int64) -> String? {
        let days = unixMicroseconds.floorDivided(by: 86_400_000_000)
        guard (0...9999).contains(civilDate(daysSinceEpoch: days).0) else { return nil }
        return utcFraction(unixMicroseconds: unixMicroseconds, digits: 3, separator: UInt8(ascii: " "), zulu: false)
    }

    /// A UTC date-time with `digits` (3 or 6) fraction digits, written byte by byte (years 0–9999;
    /// others as `"\(year)"` would write them).
    private static func utcFraction(unixMicroseconds: Int64, digits: Int, separator: UInt8, zulu: Bool) -> String {
        let seconds = unixMicroseconds.floorDivided(by: 1_000_000)
        let micros = unixMicroseconds - seconds * 1_000_000
        let fraction = digits == 6 ? micros : micros / 1_000
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))\(Character(Unicode.Scalar(separator)))"
                + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))."
                + "\(pad(fraction, digits))\(zulu ? "Z" : "")"
        }
        return String(unsafeUninitializedCapacity: 20 + digits + (zulu ? 1 : 0)) { buffer in
            var at = writeDateTime(year: year, month: month, day: day, secondOfDay: secondOfDay, into: buffer)
            buffer[10] = separator
            buffer[at] = UInt8(ascii: ".")
            write(fraction, width: digits, into: buffer, at: at + 1)
            at += 1 + digits
            if zulu {
                buffer[at] = UInt8(ascii: "Z")
                at += 1
            }
            return at
        }
    }

    /// `2026-11-22T04:36:31.123456Z`: the date in UTC, rounded to the microsecond.
    public static func utcMicroseconds(_ date: Date) -> String {
        utcMicroseconds(unixMicroseconds: unixMicroseconds(date))
    }

    /// The date's Unix time in microseconds, rounded (clamped to ±2^62; 0 for a non-finite date).
    public static func unixMicroseconds(_ date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return Int64(micros.isFinite ? max(Double(Int64.min / 2), min(Double(Int64.max / 2), micros)) : 0)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month, day of the day that `seconds` since 1970-01-01 00:00 fall in (any Int64).
    public static func civilDate(unixSeconds seconds: Int64) -> (Int64, Int64, Int64) {
        civilDate(daysSinceEpoch: seconds.floorDivided(by: 86_400))
    }

    /// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    public static func civilDate(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
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
