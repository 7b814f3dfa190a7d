import Foundation

/// An item marked sold out by ops, optionally until a given instant.
public struct SoldOut: Hashable, Sendable, Codable {
    public var itemID: String
    /// When the item comes back by itself; nil means until ops say otherwise.
    public var until: Date?

    public init(itemID: String, until: Date?) {
        self.itemID = itemID
        self.until = until
    }

    /// Whether the mark still applies at `instant`.
    public func applies(at instant: Date) -> Bool { until.map { instant < $0 } ?? true }
}

/// Why an item cannot be ordered right now.
public enum Unavailability: String, Hashable, Sendable, Codable {
    case soldOut = "sold_out"
    case outsideDayPart = "outside_day_part"
}

extension Menu {
    /// Whether `item` can be ordered at `instant`, whose café-local time of day is `localTime`
    /// (`cafe.localMoment(of: instant).time`, worked out once for a whole menu or order).
    public func unavailability(
        of item: MenuItem, soldOut: SoldOut?, localTime time: LocalTime,
        at instant: Date
    ) -> Unavailability? {
        if let soldOut, soldOut.applies(at: instant) { return .soldOut }
        guard !item.dayParts.isEmpty else { return nil }
        let inDayPart = item.dayParts.contains { id in dayPart(id)?.range.contains(time) ?? false }
        return inDayPart ? nil : .outsideDayPart
    }
}
