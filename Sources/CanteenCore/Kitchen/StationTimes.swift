import Foundation

/// One station's live times: what the kitchen display's header and `GET …/kitchen` show.
public struct StationTimes: Hashable, Sendable {
    public var station: String
    /// Tickets held (not yet fired) for the station.
    public var heldTickets: Int
    /// Open tickets at the station: new, preparing or ready.
    public var openTickets: Int
    /// How many became ready in the last hour.
    public var finishedLastHour: Int
    /// Median and 90th percentile of fired → ready over the last hour, in seconds; nil without any.
    public var medianSeconds: Int?
    public var p90Seconds: Int?
    /// The prep work waiting or under way (new tickets whole, prepared ones what is left of
    /// their prep time), in seconds of prep time.
    public var queueSeconds: Int
    /// The throughput learnt for the station.
    public var throughput: StationThroughput

    /// Every station of `stations` (and any other that has tickets), in that order, then by id.
    public static func report(_ load: KitchenLoad, stations: [String]) -> [StationTimes] {
        var order = stations
        for station in (load.open.map(\.station) + load.finished.map(\.station)).sorted() where !order.contains(station)
        {
            order.append(station)
        }
        return order.map { station in
            let open = load.open.filter { $0.station == station }
            let durations = load.finished.filter { $0.station == station }
                .map { $0.finishedAt.timeIntervalSince($0.firedAt) }.sorted()
            var queue = 0.0
            for ticket in open {
                let prep = Double(ticket.prepSeconds ?? KitchenTiming.assumedPrepSeconds)
                switch ticket.status {
                case .new: queue += prep
                case .preparing: queue += max(0, prep - load.now.timeIntervalSince(ticket.startedAt ?? load.now))
                default: break
                }
            }
            return StationTimes(
                station: station, heldTickets: open.count { $0.status == .held },
                openTickets: open.count { $0.status != .held }, finishedLastHour: durations.count,
                medianSeconds: percentile(50, of: durations), p90Seconds: percentile(90, of: durations),
                queueSeconds: Int(queue.rounded()), throughput: load.throughput(of: station))
        }
    }

    /// The nearest-rank percentile of sorted `values`, in whole seconds; nil when empty.
    public static func percentile(_ percent: Int, of sorted: [Double]) -> Int? {
        sorted.nearestRank(percent).map { Int($0.rounded()) }
    }
}
