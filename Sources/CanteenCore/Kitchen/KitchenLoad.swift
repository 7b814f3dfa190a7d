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
    /// Whether it was held at placement (it reaches its station after later orders' tickets).
    public var wasHeld: Bool

    public init(
        station: String, status: TicketStatus, prepSeconds: Int?, availableAt: Date, startedAt: Date? = nil,
        wasHeld: Bool = false
    ) {
        self.station = station
        self.status = status
        self.prepSeconds = prepSeconds
        self.availableAt = availableAt
        self.startedAt = startedAt
        self.wasHeld = wasHeld || status == .held
    }
}

/// A ticket that became ready recently: what a station's times and throughput are learnt from.
public struct FinishedTicket: Hashable, Sendable {
    public var station: String
    public var prepSeconds: Int?
    public var firedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date
    /// Whether it was held at placement.
    public var wasHeld: Bool

    public init(
        station: String, prepSeconds: Int?, firedAt: Date, startedAt: Date?, finishedAt: Date,
        wasHeld: Bool = false
    ) {
        self.station = station
        self.prepSeconds = prepSeconds
        self.firedAt = firedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.wasHeld = wasHeld
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

    /// How long a ticket must have waited for a cook to show that the station was at full stretch.
    public static let saturatedWait: TimeInterval = 60

    /// Learnt from `finished` (one station's tickets of the last hour) and how many of its
    /// tickets are being prepared and waiting now. `cooks` is the most tickets worked on at once
    /// (from started to ready, or now); while the station has not been seen at full stretch (no
    /// ticket waits now, none waited a minute for a cook in the last hour) one more cook than
    /// those at work is assumed, since a quiet station shows no more cooks than it needs.
    /// `speed` is the sum of prep times over the sum of the time the tickets took. A ticket
    /// started and bumped within a fifth of its prep time says nothing of its duration (bumped
    /// in passing) and is left out of both.
    public static func learned(
        from finished: [FinishedTicket], preparingNow: Int,
        waitingNow: Int = 0
    ) -> StationThroughput {
        var work = 0.0
        var took = 0.0
        var saturated = waitingNow > 0
        var edges: [(at: Date, change: Int)] = []
        for ticket in finished {
            guard let started = ticket.startedAt else { continue }
            if started.timeIntervalSince(ticket.firedAt) >= saturatedWait { saturated = true }
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
        let spare = !saturated && preparingNow > 0 ? 1 : 0
        let cooks = max(most, preparingNow + spare, 1)
        guard took > 0 else { return StationThroughput(cooks: cooks, speed: 1) }
        return StationThroughput(cooks: cooks, speed: work / took)
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
    /// Prep work reaching each station per second, learnt from the last hour.
    private let arrivals: [String: Double]

    /// How far back finished tickets are learnt from.
    public static let history: TimeInterval = 3600

    /// How far ahead the work of orders not placed yet is counted for a held ticket: the last
    /// hour's rate says little of the next hour (a rush falls off), and work arriving long
    /// before the ticket fires is mostly done by then. Five minutes did best in the simulated
    /// rush (`canteen kitchen simulate --seed 3` and `--seed 4`: readyAt p90 1:25 and 1:58,
    /// against 1:25 and 2:08 counting none, 2:26 and 3:12 counting 15 minutes, 8:15 and 7:08
    /// counting the whole hold).
    public static let lookahead: TimeInterval = 300

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
        let waiting = Dictionary(grouping: open.filter { $0.status == .new }, by: \.station).mapValues(\.count)
        var throughputs: [String: StationThroughput] = [:]
        for station in Set(finished.map(\.station)).union(preparing.keys) {
            throughputs[station] = .learned(
                from: finished.filter { $0.station == station },
                preparingNow: preparing[station] ?? 0, waitingNow: waiting[station] ?? 0)
        }
        self.throughputs = throughputs
        arrivals = Self.arrivalRates(now: now, open: open, finished: finished)
    }

    /// Prep seconds of work that reached each station at once (not held) per second over the
    /// last hour (or since its first ticket of that hour, and at least ten minutes): tickets
    /// fired, finished (ready ones are among the finished) or not. A ticket held now is overtaken
    /// by later orders' tickets fired at once; later orders' held tickets fire after it.
    static func arrivalRates(now: Date, open: [OpenTicket], finished: [FinishedTicket]) -> [String: Double] {
        let since = now - history
        var work: [String: Double] = [:]
        var first: [String: Date] = [:]
        let reached =
            finished.filter { !$0.wasHeld }.map { ($0.station, $0.prepSeconds, $0.firedAt) }
            + open.filter { ($0.status == .new || $0.status == .preparing) && !$0.wasHeld }
            .map { ($0.station, $0.prepSeconds, $0.availableAt) }
        for (station, prep, at) in reached where at >= since && at <= now {
            work[station, default: 0] += Double(prep ?? KitchenTiming.assumedPrepSeconds)
            first[station] = min(first[station] ?? at, at)
        }
        return work.reduce(into: [:]) { rates, entry in
            let window = min(history, max(600, now.timeIntervalSince(first[entry.key] ?? since)))
            rates[entry.key] = entry.value / window
        }
    }

    /// Prep work reaching `station` per second, learnt from the last hour (0 without history).
    public func arrivalRate(of station: String) -> Double { arrivals[station] ?? 0 }

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
    /// there first), each the next free cook; then this one. A ticket held until later also finds
    /// the work of orders not placed yet ahead of it: what the station's last hour says reaches
    /// it in the `lookahead` before it fires from orders' longest tickets, which fire at once
    /// (`arrivalRate`), taken as a flow that first fills the cooks' idle time and then delays
    /// them all alike.
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
        if arrival > 0 {
            let future = arrivalRate(of: station) * min(arrival, Self.lookahead) / throughput.speed
            let idle = cooks.reduce(0.0) { $0 + max(0, arrival - $1) }
            if future > idle {
                let each = (future - idle) / Double(cooks.count)
                cooks = cooks.map { max($0, arrival) + each }
            }
        }
        let cook = nextCook()
        return now + max(cooks[cook], arrival, 0) + Self.duration(prepSeconds, throughput)
    }
}
