import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Clients following orders while the kitchen moves them: each order has a long-poll
/// (`GET /v1/orders/{id}?wait=30` with its ETag) and an event stream
/// (`GET /v1/orders/{id}/events` with `Last-Event-ID`) waiting, all parked at once; the orders'
/// first tickets are then moved to preparing one after the other, and each follower's wait is
/// timed from sending the move to receiving the change. One thread multiplexes the followers'
/// sockets with `poll()`.
struct FollowOrderRun {
    let port: Int
    let orders: Int
    let requests: BenchRequests
    let runID: String

    struct Outcome {
        /// Nanoseconds from sending each move to the long-poll's answer, and to the stream's event.
        var longPoll: [UInt64] = []
        var stream: [UInt64] = []
        /// The moves' own round trips.
        var moves: [UInt64] = []
        var missing = 0
        var failures: [String] = []
    }

    private struct Followed {
        let ticketID: String
        let longPoll: Int32
        let stream: Int32
    }

    func run() -> Outcome {
        var outcome = Outcome()
        var followed: [Followed] = []
        defer { for order in followed { close(order.longPoll); close(order.stream) } }
        let kiosk: HTTPConnection
        let kitchen: HTTPConnection
        do {
            kiosk = try HTTPConnection(port: port)
            kitchen = try HTTPConnection(port: port)
            for number in 0..<orders {
                let placed = try kiosk.exchange(requests.order(key: "\(runID)-follow-\(number)"))
                guard placed.status == 201,
                    let order = try? JSONSerialization.jsonObject(with: Data(placed.body)) as? [String: Any],
                    let id = order["id"] as? String, let tickets = order["tickets"] as? [[String: Any]],
                    let ticketID = tickets.first?["id"] as? String
                else {
                    throw BenchError(
                        "order",
                        "order answered \(placed.status): \(String(decoding: placed.body.prefix(200), as: UTF8.self))")
                }
                let read = try kiosk.exchange(requests.orderRead(id: id))
                guard read.status == 200, let etag = read.etag,
                    let version = Int64(etag.filter(\.isNumber))
                else {
                    throw BenchError("order", "GET /v1/orders/\(id) answered \(read.status) without a version ETag")
                }
                let longPoll = try ParkedDisplaysRun.connect(port: port)
                let stream = try ParkedDisplaysRun.connect(port: port)
                followed.append(Followed(ticketID: ticketID, longPoll: longPoll, stream: stream))
                guard ParkedDisplaysRun.sendAll(longPoll, requests.orderRead(id: id, etag: etag, wait: 30)),
                    ParkedDisplaysRun.sendAll(stream, requests.orderEvents(id: id, lastEventID: version))
                else {
                    throw BenchError("send", "send: errno \(errno)")
                }
            }
        } catch {
            outcome.failures.append("\(error)")
            return outcome
        }
        usleep(1_000_000)  // let every follower park
        // The stream's first bytes are its head and a comment; the change is this event.
        let marker = Array("event: order.preparing".utf8)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for order in followed {
            // The move is sent and its answer awaited in the same poll() as the followers', so
            // each wait is timed from the move's first byte to the follower's, not bounded by
            // the move's own round trip.
            let sent = monotonicNanos()
            do {
                try kitchen.send(requests.move(ticket: order.ticketID, to: "preparing"))
            } catch {
                outcome.failures.append("\(error)")
                continue
            }
            var streamed: [UInt8] = []
            var waiting = [
                pollfd(fd: kitchen.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: order.longPoll, events: Int16(POLLIN), revents: 0),
                pollfd(fd: order.stream, events: Int16(POLLIN), revents: 0),
            ]
            let deadline = sent + 5_000_000_000
            while !waiting.isEmpty, monotonicNanos() < deadline {
                guard Glibc.poll(&waiting, nfds_t(waiting.count), 100) > 0 else { continue }
                let now = monotonicNanos()
                var still: [pollfd] = []
                for entry in waiting {
                    guard entry.revents != 0 else {
                        still.append(pollfd(fd: entry.fd, events: entry.events, revents: 0))
                        continue
                    }
                    if entry.fd == kitchen.descriptor {
                        do {
                            let moved = try kitchen.readResponse()
                            outcome.moves.append(now - sent)
                            if moved.status != 200 { outcome.failures.append("the move answered \(moved.status)") }
                        } catch {
                            outcome.failures.append("\(error)")
                        }
                        continue
                    }
                    let count = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress!, $0.count, 0) }
                    if entry.fd == order.longPoll {
                        if count > 0 {
                            outcome.longPoll.append(now - sent)
                        } else {
                            outcome.failures.append("long-poll closed")
                        }
                        continue
                    }
                    guard count > 0 else {
                        outcome.failures.append("stream closed")
                        continue
                    }
                    streamed += buffer[0..<count]
                    if Self.contains(streamed, marker) {
                        outcome.stream.append(now - sent)
                    } else {
                        still.append(pollfd(fd: entry.fd, events: entry.events, revents: 0))
                    }
                }
                waiting = still
            }
            outcome.missing += waiting.filter { $0.fd != kitchen.descriptor }.count
        }
        return outcome
    }

    private static func contains(_ bytes: [UInt8], _ marker: [UInt8]) -> Bool {
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { start in
            bytes[start..<(start + marker.count)].elementsEqual(marker)
        }
    }
}
