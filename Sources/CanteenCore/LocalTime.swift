/// A wall-clock time of day in a café's own time zone, to the minute (`07:30`; `24:00` ends a day).
public struct LocalTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minutes since local midnight, 0...1440.
    public let minutes: Int

    public init(minutes: Int) {
        precondition((0...1440).contains(minutes), "LocalTime out of range")
        self.minutes = minutes
    }

    public init(hour: Int, minute: Int) { self.init(minutes: hour * 60 + minute) }

    /// Parses `HH:MM` (00:00–24:00); nil when malformed.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...24).contains(hour), (0...59).contains(minute),
            hour * 60 + minute <= 1440
        else { return nil }
        self.init(minutes: hour * 60 + minute)
    }

    public var hour: Int { minutes / 60 }
    public var minute: Int { minutes % 60 }

    public var description: String {
        let h = hour < 10 ? "0\(hour)" : "\(hour)"
        let m = minute < 10 ? "0\(minute)" : "\(minute)"
        return "\(h):\(m)"
    }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.minutes < rhs.minutes }
}

extension LocalTime: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let time = LocalTime(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected HH:MM, found \(text)"))
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A half-open span of local time, `start ..< end`, within one day.
public struct LocalTimeRange: Hashable, Sendable, Codable {
    public var start: LocalTime
    public var end: LocalTime

    public init(start: LocalTime, end: LocalTime) {
        self.start = start
        self.end = end
    }

    public func contains(_ time: LocalTime) -> Bool { start <= time && time < end }

    public func contains(_ other: LocalTimeRange) -> Bool { start <= other.start && other.end <= end }
}
