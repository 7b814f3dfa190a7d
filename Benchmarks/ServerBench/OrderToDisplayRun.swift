import Foundation
import Synchronization

/// Kitchen displays long-polling a café's feed while orders are placed one at a time: the time
/// from sending each order's POST to each display receiving its ticket.
struct OrderToDisplayRun {
    /// What one run observed.
    struct Outcome {
        let orders: Int
        let latency: LatencySummary
        let orderLatency: LatencySummary
        let missing: Int
        let failures: [String]
    }

    let port: Int
    /// Where orders are sent (another server of the same database, or `port`).
    let orderPort: Int
    let displays: Int
    let orders: Int
    let interval: Double
    let startCursor: Int64
    /// A long-poll request after a cursor (with `If-None-Match` = that cursor's ETag).
    let poll: @Sendable (Int64) -> [UInt8]
    /// The POST of order number n.
    let order: @Sendable (Int) -> [UInt8]

    private struct DisplayResult {
        var firstSeen: [String: UInt64] = [:]
        var failure: String?
    }

    func run() -> Outcome {
        let results = Mutex<[DisplayResult]>([])
        let connections = Mutex<[Int32]>([])
        let stopping = Atomic<Bool>(false)
        let pairsSeen = Atomic<Int>(0)
        let done = DispatchGroup()
        let (port, poll, startCursor) = (port, poll, startCursor)
        for _ in 0..<displays {
            done.enter()
            let thread = Thread {
                var result = DisplayResult()
                do {
                    let connection = try HTTPConnection(port: port)
                    connections.withLock { $0.append(connection.descriptor) }
                    var cursor = startCursor
                    while !stopping.load(ordering: .acquiring) {
                        let response = try connection.exchange(poll(cursor))
                        let received = monotonicNanos()
                        guard response.status == 200 else {
                            if response.status != 304 { throw BenchError("feed", "feed answered \(response.status)") }
                            continue
                        }
                        let feed = try Self.parseFeed(response.body)
                        for orderID in feed.orderIDs where result.firstSeen[orderID] == nil {
                            result.firstSeen[orderID] = received
                            pairsSeen.add(1, ordering: .relaxed)
                        }
                        cursor = feed.cursor
                    }
                } catch {
                    if !stopping.load(ordering: .acquiring) { result.failure = "\(error)" }
                }
                results.withLock { $0.append(result) }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }

        // Let every display connect and park its first long-poll.
        let parkDeadline = monotonicNanos() + 5_000_000_000
        while connections.withLock({ $0.count }) < displays && monotonicNanos() < parkDeadline { usleep(10_000) }
        usleep(500_000)

        var sentAt: [String: UInt64] = [:]
        var orderLatencies: [UInt64] = []
        var failures: [String] = []
        do {
            let connection = try HTTPConnection(port: orderPort)
            var next = monotonicNanos()
            for number in 0..<orders {
                let sent = monotonicNanos()
                let response = try connection.exchange(order(number))
                orderLatencies.append(monotonicNanos() - sent)
                guard response.status == 201, let id = Self.orderID(response.body) else {
                    throw BenchError(
                        "order",
                        "order answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                    )
                }
                sentAt[id] = sent
                next += UInt64(interval * 1e9)
                let now = monotonicNanos()
                if next > now { usleep(UInt32((next - now) / 1_000)) }
            }
        } catch {
            failures.append("\(error)")
        }

        // Give the displays up to 5 s to receive the last orders, then wake and stop them.
        let settleDeadline = monotonicNanos() + 5_000_000_000
        while pairsSeen.load(ordering: .relaxed) < displays * sentAt.count && monotonicNanos() < settleDeadline {
            usleep(10_000)
        }
        stopping.store(true, ordering: .releasing)
        connections.withLock { $0.forEach(HTTPConnection.shutDown(descriptor:)) }
        done.wait()

        let all = results.withLock { $0 }
        var latencies: [UInt64] = []
        var missing = 0
        for display in all {
            for (id, sent) in sentAt {
                if let seen = display.firstSeen[id], seen >= sent {
                    latencies.append(seen - sent)
                } else {
                    missing += 1
                }
            }
        }
        failures += all.compactMap(\.failure)
        return Outcome(
            orders: sentAt.count, latency: LatencySummary(latencies),
            orderLatency: LatencySummary(orderLatencies), missing: missing, failures: failures)
    }

    // MARK: - JSON

    struct Feed {
        let orderIDs: [String]
        let cursor: Int64
    }

    static func parseFeed(_ body: [UInt8]) throws(BenchError) -> Feed {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let tickets = object["tickets"] as? [[String: Any]],
            let cursorText = object["cursor"] as? String, let cursor = Int64(cursorText)
        else {
            throw BenchError("feed", "unexpected feed body: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        return Feed(orderIDs: tickets.compactMap { $0["orderId"] as? String }, cursor: cursor)
    }

    static func orderID(_ body: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["id"] as? String
    }
}
