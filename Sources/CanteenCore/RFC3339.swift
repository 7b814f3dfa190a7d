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

    /// `2026-11-22T09:30:00-06:00` in `timeZone` (whole seconds).
    public static func string(_ date: Date, timeZone: TimeZone) -> String {
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: timeZone)
        return style.format(date)
    }
}
