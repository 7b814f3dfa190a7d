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

    public var period: ReportPeriod
    public var stations: [Station]
    public var orders: OrderReadiness

    public init(period: ReportPeriod, tickets: [ReportedTicket], orders: OrderReadiness) {
        self.period = period
        self.orders = orders
        let byStation = Dictionary(grouping: tickets, by: \.station)
        stations = byStation.keys.sorted().map { name in
            let all = byStation[name] ?? []
            let kept = all.filter { !$0.cancelled }
            let times = kept.compactMap(\.secondsToReady).sorted()
            return Station(
                station: name, tickets: kept.count, cancelled: all.count - kept.count, ready: times.count,
                readyByWindowStart: kept.filter { $0.readyByWindowStart == true }.count,
                p50Seconds: Self.percentile(50, of: times), p90Seconds: Self.percentile(90, of: times),
                maxSeconds: times.last)
        }
    }

    /// The nearest-rank percentile of sorted values: the smallest value with at least
    /// `percent` % of the values at or below it (nil for none).
    public static func percentile(_ percent: Int, of sorted: [Int64]) -> Int64? {
        guard !sorted.isEmpty else { return nil }
        let rank = (percent * sorted.count + 99) / 100
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}

/// A café's pickup windows on one café-local date: capacity, what was taken and what was refused.
public struct WindowsReport: Hashable, Sendable {
    public struct Row: Hashable, Sendable {
        public var window: PickupWindow
        public var capacity: Int
        public var figures: WindowFigures
    }

    public var date: LocalDate
    public var capacityUnit: PickupSchedule.Unit
    public var rows: [Row]

    /// Every window of `date` (from the café's hours, DST-correct), with the figures the store found.
    public init(cafe: Cafe, date: LocalDate, figures: [Date: WindowFigures]) {
        self.date = date
        capacityUnit = cafe.pickup.capacityUnit
        rows = cafe.pickupWindows(on: date).map {
            Row(window: $0, capacity: cafe.pickup.capacity, figures: figures[$0.start] ?? WindowFigures())
        }
    }
}
