import Foundation

// MARK: - RFC3339

/// RFC 3339 UTC timestamps with microseconds (`2026-11-22T04:36:31.123456Z`).
public enum RFC3339 {
    /// Formats Unix microseconds.
    public static func string(unixMicroseconds: Int64) -> String {
        let seconds = unixMicroseconds.floorDivided(by: 1_000_000)
        let micros = unixMicroseconds - seconds * 1_000_000
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(micros, 6))Z"
    }

    /// Formats a date, rounded to the microsecond.
    public static func string(_ date: Date) -> String {
        string(unixMicroseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
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
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
