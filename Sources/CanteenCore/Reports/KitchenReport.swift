import Foundation

/// How a café's kitchen did over a period: per station, its tickets and the time from an order
/// being placed to the ticket marked ready (median, 90th percentile, longest), and how many were
/// ready by the start of their pickup window; for the whole café, the orders ready by then.
public struct KitchenReport: Hashable, Sendable {
    /// One station's figures. Times are whole seconds; nil when no ticket was ready.
    public struct Station: Hashable, Sendable {
        public var station: String
        /// Tickets of orders not cancelled.
        public var tickets: Int
        public var cancelled: Int
        public var ready: Int
        public var readyByWindowStart: Int
        public var p50Seconds: Int64?
        public var p90Seconds: Int64?
        public var maxSeconds: Int64?
    }

    public var stations: [Station]
    public var orders: OrderReadiness

    public init(tickets: [ReportedTicket], orders: OrderReadiness) {
        self.orders = orders
        let byStation = Dictionary(grouping: tickets, by: \.station)
        stations = byStation.keys.sorted().map { name in
            let all = byStation[name] ?? []
            let kept = all.filter { !$0.cancelled }
            let times = kept.compactMap(\.secondsToReady).sorted()
            return Station(
                station: name, tickets: kept.count, cancelled: all.count - kept.count, ready: times.count,
                readyByWindowStart: kept.filter { $0.readyByWindowStart == true }.count,
                p50Seconds: times.nearestRank(50), p90Seconds: times.nearestRank(90),
                maxSeconds: times.last)
        }
    }
}

/// A café's pickup windows on one café-local date: capacity, what was taken and what was refused.
public struct WindowsReport: Hashable, Sendable {
    public struct Row: Hashable, Sendable {
        public var window: PickupWindow
        public var capacity: Int
        public var figures: WindowFigures
    }

    public var capacityUnit: PickupSchedule.Unit
    public var rows: [Row]

    /// The café's `windows` of one date (`cafe.pickupWindows(on:)`: from its hours, DST-correct),
    /// with the figures the store found.
    public init(cafe: Cafe, windows: [PickupWindow], figures: [Date: WindowFigures]) {
        capacityUnit = cafe.pickup.capacityUnit
        rows = windows.map {
            Row(window: $0, capacity: cafe.pickup.capacity, figures: figures[$0.start] ?? WindowFigures())
        }
    }
}
