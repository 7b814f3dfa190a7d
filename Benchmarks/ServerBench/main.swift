import BenchFigures
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// server-bench: load against a running `canteen serve` on loopback (see scripts/bench-server.sh).
//
//   server-bench --port P --kiosk-token T --kitchen-token K [--cafe bench] [--items a,b] [--order-ports P1,P2]
//                [--connections 32] [--warmup 2] [--duration 10] [--poll-connections 64]
//                [--displays 50] [--display-orders 200] [--display-interval 0.02] [--followed 100]
//                [--parked 2000] [--streams 2000] [--idle 10000 --server-pid PID] [--final-cursor]
//
// Each thread owns one blocking keep-alive connection (TCP_NODELAY); the client shares the
// machine's cores with the server. Phases: GET /healthz, POST /v1/orders, 304 feed polls,
// order-to-display latency with long-polling displays, parked displays (long-poll), displays on
// the ticket event stream, followed orders (a status change reaching a long-poll and an event
// stream), and the server memory held by idle keep-alive connections or idle event streams
// (idle-keepalive, idle-streams: each on a fresh server, whose PID they need). With
// `--final-cursor`, the feed's last cursor is read at the end (by paging through every ticket,
// which is not part of any phase: a caller measuring the server's CPU over the phases does
// not pass it).

// MARK: - Arguments

var port = 0
var orderPorts: [Int] = []
var kioskToken = ""
var kitchenToken = ""
var cafe = "bench"
var items = ["orange_juice", "croissant"]
var connections = 32
var warmup = 2.0
var duration = 10.0
var pollConnections = 64
var displays = 50
var displayOrders = 200
var displayInterval = 0.02
var parkedDisplays = 2000
var parkedRounds = 5
var streamDisplays = 2000
var idleConnections = 10_000
var serverPID: Int32 = 0
var followedOrders = 100
/// The pipeline phase's references: a bare Hummingbird server, and Canteen at the default log level.
var barePort = 0
var infoPort = 0
/// The healthz rate of this run, the reference of the orders' share.
var healthzRate: Double?
var phases: Set<String> = ["healthz", "orders", "polls", "display", "parked", "streams", "follow"]
/// Whether the feed's final cursor is read and printed after the phases (`final feed cursor: N`).
var printsFinalCursor = false

var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    if argument == "--final-cursor" {
        printsFinalCursor = true
        continue
    }
    let value = arguments.next() ?? ""
    switch argument {
    case "--port": port = Int(value) ?? 0
    case "--order-ports": orderPorts = value.split(separator: ",").compactMap { Int($0) }
    case "--kiosk-token": kioskToken = value
    case "--kitchen-token": kitchenToken = value
    case "--cafe": cafe = value
    case "--items": items = value.split(separator: ",").map(String.init)
    case "--connections": connections = Int(value) ?? connections
    case "--warmup": warmup = Double(value) ?? warmup
    case "--duration": duration = Double(value) ?? duration
    case "--poll-connections": pollConnections = Int(value) ?? pollConnections
    case "--displays": displays = Int(value) ?? displays
    case "--display-orders": displayOrders = Int(value) ?? displayOrders
    case "--display-interval": displayInterval = Double(value) ?? displayInterval
    case "--parked": parkedDisplays = Int(value) ?? parkedDisplays
    case "--parked-rounds": parkedRounds = Int(value) ?? parkedRounds
    case "--streams": streamDisplays = Int(value) ?? streamDisplays
    case "--idle": idleConnections = Int(value) ?? idleConnections
    case "--server-pid": serverPID = Int32(value) ?? 0
    case "--followed": followedOrders = Int(value) ?? followedOrders
    case "--bare-port": barePort = Int(value) ?? 0
    case "--info-port": infoPort = Int(value) ?? 0
    case "--phases": phases = Set(value.split(separator: ",").map(String.init))
    default:
        FileHandle.standardError.write(Data("server-bench: unknown option \(argument)\n".utf8))
        exit(2)
    }
}
guard port > 0, !kioskToken.isEmpty, !kitchenToken.isEmpty else {
    FileHandle.standardError.write(
        Data("usage: server-bench --port P --kiosk-token T --kitchen-token K [options]\n".utf8))
    exit(2)
}

if orderPorts.isEmpty { orderPorts = [port] }

// MARK: - Requests

let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
let requests = BenchRequests(cafe: cafe, kioskToken: kioskToken, kitchenToken: kitchenToken, items: items)
let serverPort = port

// MARK: - Report

func report(_ title: String, _ outcome: ClosedLoopLoad.Outcome, unit: String) {
    print(
        String(
            format: "%@: %.0f %@/s (%d in %.0f s); latency %@", title, outcome.perSecond, unit,
            outcome.completed, outcome.seconds, outcome.latency.text))
    let statuses = outcome.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
    print("    statuses: \(statuses)")
    if let unexpected = outcome.firstUnexpected { print("    first unexpected answer: \(unexpected)") }
    for failure in Set(outcome.failures) { print("    connection failed: \(failure)") }
}

func verdict(_ name: String, _ met: Bool) -> String { "\(name): \(met ? "met" : "MISSED")" }

print(
    "server-bench: 127.0.0.1:\(port), café '\(cafe)', order lines \(items.joined(separator: " + ")); "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by server and client")
var verdicts: [String] = []

// MARK: - Phases

if phases.contains("healthz") {
    let outcome = ClosedLoopLoad(
        ports: [serverPort], connections: connections, warmup: warmup, duration: duration,
        expectedStatus: 200
    ) { _, _ in BenchRequests.healthz }.run()
    report("GET /healthz (ceiling), \(connections) connections", outcome, unit: "req")
    healthzRate = outcome.perSecond
    BenchFigures.record(
        "healthz_rps", outcome.perSecond, unit: "req/s",
        title: "GET /healthz, \(connections) connections (the HTTP ceiling)")
}

if phases.contains("pipeline"), barePort > 0, infoPort > 0 {
    // Three rounds, the three servers in turn within each (the machine's load drifts), the median
    // of each: Canteen's request pipeline against a bare Hummingbird answering the same body.
    var rates: [String: [Double]] = [:]
    let targets = [("bare", barePort), ("warning", serverPort), ("info", infoPort)]
    for _ in 0..<3 {
        for (name, target) in targets {
            let outcome = ClosedLoopLoad(
                ports: [target], connections: connections, warmup: warmup, duration: duration, expectedStatus: 200
            ) { _, _ in BenchRequests.healthz }.run()
            rates[name, default: []].append(outcome.perSecond)
        }
    }
    func median(_ name: String) -> Double { rates[name, default: [0]].sorted()[rates[name, default: [0]].count / 2] }
    let bare = median("bare")
    print(
        String(
            format: "GET /healthz on a bare Hummingbird (no middleware), %d connections: %.0f req/s (median of %@)",
            connections, bare, rates["bare", default: []].map { String(format: "%.0f", $0) }.joined(separator: ", ")))
    BenchFigures.record(
        "bare_hummingbird_rps", bare, unit: "req/s", title: "GET /healthz on a bare Hummingbird server (the reference)")
    for (name, floor) in [("warning", 90.0), ("info", 70.0)] {
        let rate = median(name)
        let share = bare > 0 ? 100 * rate / bare : 0
        print(
            String(
                format: "GET /healthz through Canteen's pipeline at log level %@: %.0f req/s (median of %@), "
                    + "%.1f %% of bare",
                name, rate, rates[name, default: []].map { String(format: "%.0f", $0) }.joined(separator: ", "), share))
        BenchFigures.record(
            "pipeline_share_\(name)", share, unit: "%",
            title: "Canteen's healthz at log level \(name) as a share of bare Hummingbird's "
                + "(ceiling ≥ \(Int(floor)) %)",
            reference: "bare_hummingbird_rps")
        verdicts.append(
            verdict(String(format: "pipeline at %@ ≥ %.0f %% of bare (%.1f %%)", name, floor, share), share >= floor))
    }
}

if phases.contains("orders") {
    let outcome = ClosedLoopLoad(
        ports: orderPorts, connections: connections, warmup: warmup, duration: duration,
        expectedStatus: 201
    ) { worker, sequence in
        requests.order(key: "\(runID)-\(worker)-\(sequence)")
    }.run()
    let spread = orderPorts.count > 1 ? " over \(orderPorts.count) servers" : ""
    report("POST /v1/orders, \(connections) kiosks\(spread)", outcome, unit: "orders")
    let p99 = outcome.latency.milliseconds(atPercentile: 99)
    BenchFigures.record(
        "orders_per_s", outcome.perSecond, unit: "orders/s",
        title: "durable orders, \(connections) keep-alive kiosks", reference: "sqlite_commits_full")
    BenchFigures.record("orders_p99_ms", p99, unit: "ms", better: .lower, title: "durable orders, p99 latency")
    if let healthzRate, healthzRate > 0 {
        let share = 100 * outcome.perSecond / healthzRate
        BenchFigures.record(
            "orders_share_of_healthz", share, unit: "%",
            title: "durable orders as a share of the same run's healthz rate (ceiling ≥ 20 %, p99 ≤ 15 ms)",
            reference: "healthz_rps")
        verdicts.append(
            verdict(
                String(format: "orders ≥ 20 %% of healthz with p99 ≤ 15 ms (%.1f %%, p99 %.1f ms)", share, p99),
                share >= 20 && p99 <= 15))
    }
    verdicts.append(
        verdict(
            String(format: "≥ 2,000 orders/s with p99 ≤ 50 ms (%.0f/s, p99 %.1f ms)", outcome.perSecond, p99),
            outcome.perSecond >= 2_000 && p99 <= 50))
}

if phases.contains("polls") || phases.contains("display") {
    do {
        let cursor = try requests.latestCursor(port: serverPort)
        print("feed cursor: \(cursor)")
        if phases.contains("polls") {
            let request = requests.feed(after: cursor)
            let outcome = ClosedLoopLoad(
                ports: [serverPort], connections: pollConnections, warmup: warmup,
                duration: duration, expectedStatus: 304
            ) { _, _ in request }.run()
            report(
                "GET tickets?after=\(cursor) + If-None-Match → 304, \(pollConnections) displays", outcome, unit: "polls"
            )
            BenchFigures.record(
                "polls_304_per_s", outcome.perSecond, unit: "polls/s",
                title: "304 polls, \(pollConnections) displays (server-bench)", reference: "healthz_rps")
            verdicts.append(
                verdict(String(format: "≥ 20,000 polls/s (%.0f/s)", outcome.perSecond), outcome.perSecond >= 20_000))
        }
        if phases.contains("display") {
            let outcome = OrderToDisplayRun(
                port: serverPort, orderPort: orderPorts.last ?? serverPort, displays: displays, orders: displayOrders,
                interval: displayInterval, startCursor: cursor,
                poll: { requests.feed(after: $0, wait: 30) },
                order: { requests.order(key: "\(runID)-display-\($0)") }
            ).run()
            let across = orderPorts.last != serverPort ? " (orders sent to another server)" : ""
            print(
                String(
                    format:
                        "order-to-display%@, %d displays long-polling (wait=30), %d orders one every %.0f ms: %@ over %d (display, order) pairs",
                    across, displays, outcome.orders, displayInterval * 1000, outcome.latency.text,
                    outcome.latency.count))
            print("    the POSTs themselves: \(outcome.orderLatency.text)")
            if outcome.missing > 0 { print("    pairs never received within 5 s: \(outcome.missing)") }
            for failure in Set(outcome.failures) { print("    failed: \(failure)") }
            let p99 = outcome.latency.milliseconds(atPercentile: 99)
            BenchFigures.record(
                "order_to_display_p99_ms", p99, unit: "ms", better: .lower,
                title: "order-to-display, \(displays) long-polling displays, p99")
            verdicts.append(
                verdict(
                    String(format: "order-to-display p99 ≤ 25 ms (%.1f ms)", p99),
                    p99 <= 25 && outcome.missing == 0 && outcome.latency.count > 0))
        }
    } catch {
        print("feed: \(error)")
        verdicts.append("feed phases: FAILED (\(error))")
    }
}

if phases.contains("parked") {
    let outcome = ParkedDisplaysRun(
        port: serverPort, displays: parkedDisplays, rounds: parkedRounds,
        poll: { requests.feed(after: $0, wait: 30) },
        order: { requests.order(key: "\(runID)-parked-\($0)") },
        cursor: { (known: Int64?) throws(BenchError) in try requests.latestCursor(port: serverPort, after: known) }
    ).run()
    let summary = LatencySummary(outcome.latencies)
    print(
        "parked displays woken by one order, \(parkedDisplays) long-polling, \(parkedRounds) orders: "
            + "\(summary.text) from the order's 201 to each display's answer (\(summary.count) answers)")
    if !outcome.roundP99s.isEmpty {
        print(
            "    each order's own p99, in order: "
                + outcome.roundP99s.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " ms")
    }
    if outcome.missing > 0 { print("    displays not answered within 10 s: \(outcome.missing)") }
    for failure in Set(outcome.failures) { print("    failed: \(failure)") }
    let p99 = summary.milliseconds(atPercentile: 99)
    BenchFigures.record(
        "parked_wake_p99_ms", p99, unit: "ms", better: .lower,
        title: "\(parkedDisplays) parked displays woken by one order, p99")
    verdicts.append(
        verdict(
            String(format: "%d parked displays woken p99 ≤ 50 ms (%.1f ms)", parkedDisplays, p99),
            p99 <= 50 && outcome.missing == 0 && summary.count > 0))
}

if phases.contains("streams") {
    let outcome = EventStreamsRun(
        port: serverPort, displays: streamDisplays, rounds: parkedRounds,
        stream: { requests.ticketEvents(after: $0) },
        order: { requests.order(key: "\(runID)-streams-\($0)") },
        cursor: { (known: Int64?) throws(BenchError) in try requests.latestCursor(port: serverPort, after: known) }
    ).run()
    let summary = LatencySummary(outcome.latencies)
    print(
        "displays on the ticket event stream woken by one order, \(streamDisplays) streams open, "
            + "\(parkedRounds) orders: \(summary.text) from the order's 201 to each display's event "
            + "(\(summary.count) events)")
    if !outcome.roundP99s.isEmpty {
        let rounds = outcome.roundP99s.map { String(format: "%.1f", $0) }.joined(separator: ", ")
        print("    each order's own p99, in order: \(rounds) ms")
    }
    if outcome.missing > 0 { print("    displays without the event within 10 s: \(outcome.missing)") }
    for failure in Set(outcome.failures) { print("    failed: \(failure)") }
    let p99 = summary.milliseconds(atPercentile: 99)
    // The reference is the long-poll's figure of the same run (the parked phase), when it ran.
    BenchFigures.record(
        "stream_wake_p99_ms", p99, unit: "ms", better: .lower,
        title: "\(streamDisplays) displays on the event stream woken by one order, p99 (ceiling 50 ms)",
        reference: phases.contains("parked") ? "parked_wake_p99_ms" : nil)
    verdicts.append(
        verdict(
            String(format: "%d streams woken p99 ≤ 50 ms (%.1f ms)", streamDisplays, p99),
            p99 <= 50 && outcome.missing == 0 && summary.count > 0))
}

for (phase, label, request, marker) in [
    (
        "idle-keepalive", "idle keep-alive connections (after GET /healthz)", BenchRequests.healthz,
        Array("\r\n\r\n".utf8)
    ),
    (
        "idle-streams", "idle ticket event streams (after their first event)", requests.ticketEvents(after: nil),
        Array("event: snapshot".utf8)
    ),
] where phases.contains(phase) {
    guard serverPID > 0 else {
        print("\(phase): needs --server-pid (the server's memory is read from /proc)")
        continue
    }
    let outcome = IdleConnectionsRun(
        port: serverPort, count: idleConnections, serverPID: serverPID, request: request,
        marker: marker
    ).run()
    let perConnection = outcome.bytesPerConnection
    print(
        String(
            format: "%@: %d held, server RSS %.1f → %.1f MiB: %.1f KB each (opened in %.1f s)", label,
            outcome.opened, Double(outcome.rssBefore) / 1_048_576, Double(outcome.rssAfter) / 1_048_576,
            perConnection / 1024, outcome.seconds))
    for failure in Set(outcome.failures) { print("    failed: \(failure)") }
    guard outcome.failures.isEmpty else { continue }
    if phase == "idle-streams" {
        BenchFigures.record(
            "idle_stream_kb", perConnection / 1024, unit: "KB", better: .lower,
            title: "server memory per idle event stream, \(outcome.opened) held (ceiling 16 KB)",
            reference: "idle_keepalive_kb")
        verdicts.append(
            verdict(
                String(format: "idle stream ≤ 16 KB (%.1f KB)", perConnection / 1024),
                perConnection <= 16 * 1024))
    } else {
        BenchFigures.record(
            "idle_keepalive_kb", perConnection / 1024, unit: "KB", better: .lower,
            title: "server memory per idle keep-alive connection, \(outcome.opened) held")
    }
}

if phases.contains("follow") {
    let outcome = FollowOrderRun(port: serverPort, orders: followedOrders, requests: requests, runID: runID).run()
    let longPoll = LatencySummary(outcome.longPoll)
    let stream = LatencySummary(outcome.stream)
    print(
        "order status → following client, \(followedOrders) orders each followed by a long-poll (wait=30) and an event "
            + "stream, all parked, first ticket moved one order at a time:")
    print("    long-poll: \(longPoll.text) from sending the move to the answer (\(longPoll.count) answers)")
    print("    event stream: \(stream.text) from sending the move to the event (\(stream.count) events)")
    print("    the moves themselves: \(LatencySummary(outcome.moves).text)")
    if outcome.missing > 0 { print("    followers not answered within 5 s: \(outcome.missing)") }
    for failure in Set(outcome.failures) { print("    failed: \(failure)") }
    let worst = max(longPoll.milliseconds(atPercentile: 99), stream.milliseconds(atPercentile: 99))
    verdicts.append(
        verdict(
            String(format: "status change → follower p99 ≤ 100 ms (%.1f ms)", worst),
            worst <= 100 && outcome.missing == 0 && longPoll.count > 0 && stream.count > 0))
}

if printsFinalCursor, let cursor = try? requests.latestCursor(port: serverPort) {
    print("final feed cursor: \(cursor)")
}
print("targets (issues 4 and 17, 2-core machine): " + verdicts.joined(separator: "; "))
