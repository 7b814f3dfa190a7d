import Foundation

/// A café's kitchen timing read from its settings and menu: whether the kitchen is timed at
/// all (some station or item has a prep time), and the tickets an order's lines make.
public struct KitchenTiming: Sendable {
    public let cafe: Cafe
    public let menu: Menu

    /// What a ticket without any known prep time counts as, in a timed kitchen (5 minutes).
    public static let assumedPrepSeconds = 300

    public init(cafe: Cafe, menu: Menu) {
        self.cafe = cafe
        self.menu = menu
    }

    /// A kitchen is timed once a station or an item has a prep time. An untimed kitchen fires
    /// every ticket at once and never refuses a window as busy; its orders are expected at
    /// their window's start (or `assumedPrepSeconds` from now, if later).
    public var isTimed: Bool {
        !cafe.kitchen.stations.isEmpty || menu.items.contains { $0.prepSeconds != nil }
    }

    /// The prep time of one item: its own, else its station's default, else nil.
    public func prepSeconds(of item: MenuItem) -> Int? {
        item.prepSeconds ?? cafe.kitchen.prepSeconds(of: item.station)
    }

    /// The tickets of an order for `itemIDs` (its lines' items, in order): one per station, in
    /// the order of each station's first line, each as long as its longest item. Ids not on
    /// the menu are skipped (pricing refuses them).
    public func tickets(for itemIDs: [String]) -> [TicketTiming] {
        var tickets: [TicketTiming] = []
        for id in itemIDs {
            guard let item = menu.item(id) else { continue }
            let prep = prepSeconds(of: item)
            if let index = tickets.firstIndex(where: { $0.station == item.station }) {
                if let prep { tickets[index].prepSeconds = max(tickets[index].prepSeconds ?? 0, prep) }
            } else {
                tickets.append(TicketTiming(station: item.station, prepSeconds: prep))
            }
        }
        return tickets
    }
}

/// One station's ticket of an order, before it is planned.
public struct TicketTiming: Hashable, Sendable {
    public var station: String
    public var prepSeconds: Int?

    public init(station: String, prepSeconds: Int?) {
        self.station = station
        self.prepSeconds = prepSeconds
    }
}
