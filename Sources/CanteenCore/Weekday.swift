/// A day of the week, as named in café files (`monday` … `sunday`).
public enum Weekday: String, CaseIterable, Codable, Sendable, Hashable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// From the Gregorian calendar's weekday component (1 = Sunday … 7 = Saturday).
    public init(gregorianWeekday: Int) {
        let order: [Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]
        self = order[(gregorianWeekday - 1 + 7) % 7]
    }
}

extension Weekday: CodingKeyRepresentable {
    public var codingKey: any CodingKey { _WeekdayKey(stringValue: rawValue) }

    public init?<T: CodingKey>(codingKey: T) {
        self.init(rawValue: codingKey.stringValue)
    }
}

private struct _WeekdayKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
