import Foundation
import Synchronization

/// Gregorian calendars per IANA time zone, built once: every menu, window and order asks for
/// its café's calendar, and building a `TimeZone` and `Calendar` each time costs far more than
/// the date arithmetic they serve.
enum ZoneCalendars {
    private static let calendars = Mutex<[String: Calendar]>([:])

    /// The zone (UTC for an unknown identifier; café files are validated before use).
    static func timeZone(_ identifier: String) -> TimeZone { calendar(identifier).timeZone }

    /// A Gregorian calendar in the zone.
    static func calendar(_ identifier: String) -> Calendar {
        if let known = calendars.withLock({ $0[identifier] }) { return known }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
        calendars.withLock { $0[identifier] = calendar }
        return calendar
    }
}
