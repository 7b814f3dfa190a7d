import Foundation

/// An open ticket as the kitchen's queue sees it.
public struct OpenTicket: Hashable, Sendable {
    public var station: String
    /// held, new, preparing or ready (ready ones are counted, not queued).
    public var status: TicketStatus
    public var prepSeconds: Int?
    /// When it reaches its station: when it fired, or its fire time while held.
    public var availableAt: Date
    /// When the kitchen started it (preparing).
    public var startedAt: Date?

    public init(station: String, status: TicketStatus, prepSeconds: Int?, availableAt: Date, startedAt: Date? = nil) {
        self.station = station
        self.status = status
        self.prepSeconds = prepSeconds
        self.availableAt = availableAt
        self.startedAt = startedAt
    }
}

/// A ticket that became ready recently: what a station's times and throughput are learnt from.
public struct FinishedTicket: Hashable, Sendable {
    public var station: String
    public var prepSeconds: Int?
    public var firedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date

    public init(station: String, prepSeconds: Int?, firedAt: Date, startedAt: Date?, finishedAt: Date) {
        self.station = station
        self.prepSeconds = prepSeconds
        self.firedAt = firedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

/// How much a station gets through: how many tickets it works on at once, and how fast
/// against their prep times (1 = exactly their prep time, 0.8 = a quarter longer).
public struct StationThroughput: Hashable, Sendable {
    public var cooks: Int
    public var speed: Double

    /// What is assumed without history: one ticket at a time, at its prep time.
    public static let unknown = StationThroughput(cooks: 1, speed: 1)

    /// The range `speed` is kept in, so that a few odd tickets cannot make the estimate absurd.
    public static let speeds: ClosedRange<Double> = 0.25...4

    public init(cooks: Int, speed: Double) {
        self.cooks = max(1, cooks)
        self.speed = min(max(speed, Self.speeds.lowerBound), Self.speeds.upperBound)
    }

    /// Learnt from `finished` (one station's tickets of the last hour) and how many of its
    /// tickets are being prepared now: `cooks` is the most tickets worked on at once (from
    /// started to ready, or now), `speed` the sum of their prep times over the sum of the time
    /// they took. A ticket started and bumped within a fifth of its prep time says nothing of
    /// its duration (bumped in passing) and is left out of both.
    public static func learned(from finished: [FinishedTicket], preparingNow: Int) -> StationThroughput {
        var work = 0.0
        var took = 0.0
        var edges: [(at: Date, change: Int)] = []
        for ticket in finished {
            guard let started = ticket.startedAt else { continue }
            let prep = Double(ticket.prepSeconds ?? KitchenTiming.assumedPrepSeconds)
            let duration = ticket.finishedAt.timeIntervalSince(started)
            guard duration > 0, duration >= prep / 5 else { continue }
            work += prep
            took += duration
            edges.append((started, 1))
            edges.append((ticket.finishedAt, -1))
        }
        // Ends before starts at the same instant: a cook bumping one ticket and starting the next.
        edges.sort { ($0.at, $0.change) < ($1.at, $1.change) }
        var busy = 0
        var most = 0
        for edge in edges {
            busy += edge.change
            most = max(most, busy)
        }
        guard took > 0 else { return StationThroughput(cooks: max(1, preparingNow), speed: 1) }
        return StationThroughput(cooks: max(most, preparingNow, 1), speed: work / took)
    }
}

/// What a café's kitchen has on at one instant: its open tickets and the tickets finished in
/// the last hour, with each station's throughput learnt from them. Ready times are estimated
/// from it (`estimatedFinish`), live times reported (`StationTimes`).
public struct KitchenLoad: Hashable, Sendable {
    public let now: Date
    public private(set) var open: [OpenTicket]
    public let finished: [FinishedTicket]
    private let throughputs: [String: StationThroughput]

    /// How far back finished tickets are learnt from.
    public static let history: TimeInterval = 3600

    /// How long an open ticket counts as queued work after it reached its station: one left
    /// unbumped longer than this is taken for forgotten, not for work ahead of a new order.
    public static let horizon: TimeInterval = 4 * 3600

    /// A load with nothing on (a café whose kitchen is not timed, or a test).
    public static func idle(at now: Date) -> KitchenLoad { KitchenLoad(now: now, open: [], finished: []) }

    public init(now: Date, open: [OpenTicket], finished: [FinishedTicket]) {
        self.now = now
        self.open = open
        self.finished = finished
        let preparing = Dictionary(grouping: open.filter { $0.status == .preparing }, by: \.station).mapValues(\.count)
        var throughputs: [String: StationThroughput] = [:]
        for station in Set(finished.map(\.station)).union(preparing.keys) {
            throughputs[station] = .learned(
                from: finished.filter { $0.station == station },
                preparingNow: preparing[station] ?? 0)
        }
        self.throughputs = throughputs
    }

    /// The throughput learnt for `station` (`unknown` without history).
    public func throughput(of station: String) -> StationThroughput { throughputs[station] ?? .unknown }

    /// Adds tickets just placed (in the same transaction), so that the next order queues behind them.
    public mutating func add(_ tickets: [OpenTicket]) { open += tickets }

    /// Seconds a ticket of `prepSeconds` takes at a station of `throughput`.
    static func duration(_ prepSeconds: Int?, _ throughput: StationThroughput) -> Double {
        Double(prepSeconds ?? KitchenTiming.assumedPrepSeconds) / throughput.speed
    }

    /// When a new ticket of `prepSeconds` reaching `station` at `availableAt` will be ready: the
    /// station's cooks take the tickets being prepared first (each for what is left of it), then
    /// the waiting and held tickets in the order they reach the station (ties: those already
    /// there first), each the next free cook; then this one.
    public func estimatedFinish(station: String, prepSeconds: Int?, availableAt: Date) -> Date {
        let throughput = throughput(of: station)
        var cooks = [Double](repeating: 0, count: throughput.cooks)
        func nextCook() -> Int { cooks.indices.min { cooks[$0] < cooks[$1] } ?? 0 }
        let mine = open.filter { $0.station == station }
        let preparing = mine.filter { $0.status == .preparing }.sorted { ($0.startedAt ?? now) < ($1.startedAt ?? now) }
        for ticket in preparing {
            let duration = Self.duration(ticket.prepSeconds, throughput)
            let elapsed = now.timeIntervalSince(ticket.startedAt ?? now)
            // An overdue ticket is taken to be nearly done, not done.
            cooks[nextCook()] += max(duration - elapsed, duration / 10)
        }
        let arrival = availableAt.timeIntervalSince(now)
        let waiting = mine.filter { ($0.status == .new || $0.status == .held) && $0.availableAt <= availableAt }
            .sorted { $0.availableAt < $1.availableAt }
        for ticket in waiting {
            let cook = nextCook()
            let start = max(cooks[cook], ticket.availableAt.timeIntervalSince(now))
            cooks[cook] = start + Self.duration(ticket.prepSeconds, throughput)
        }
        let cook = nextCook()
        return now + max(cooks[cook], arrival, 0) + Self.duration(prepSeconds, throughput)
    }
}
