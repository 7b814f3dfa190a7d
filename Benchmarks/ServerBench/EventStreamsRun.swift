import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Many displays on the ticket event stream (`GET …/tickets/events`), woken by one order: how
/// long after the order's `201` each display has the order's event. The streams are opened once
/// and stay open through every round, as a kitchen's displays do. Like `ParkedDisplaysRun`, one
/// thread multiplexes the sockets with epoll (each armed once per round) and looks at them at
/// most once per `ParkedDisplaysRun.readInterval`, so each latency is over-stated by up to 1 ms,
/// never under-stated. Bytes that are not an event (a `: still here` comment) re-arm the socket.
struct EventStreamsRun {
    let port: Int
    let displays: Int
    let rounds: Int
    /// The request that opens a stream after a cursor.
    let stream: (Int64) -> [UInt8]
    let order: (Int) -> [UInt8]
    let cursor: (Int64?) throws(BenchError) -> Int64

    struct Outcome {
        /// Nanoseconds from each order's 201 to each display's first byte of the order's event.
        var latencies: [UInt64] = []
        var roundP99s: [Double] = []
        var missing = 0
        var failures: [String] = []
    }

    static let event = Array("event: changes".utf8)

    func run() -> Outcome {
        var outcome = Outcome()
        let sockets: [Int32]
        let start: Int64
        do {
            start = try cursor(nil)
            sockets = try (0..<displays).map { _ throws(BenchError) in try ParkedDisplaysRun.connect(port: port) }
        } catch {
            outcome.failures.append(error.description)
            return outcome
        }
        defer { for socket in sockets { close(socket) } }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            outcome.failures.append("epoll_create1: errno \(errno)")
            return outcome
        }
        defer { close(epoll) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var events = [epoll_event](repeating: epoll_event(), count: 512)

        // Open every stream and wait for its first event (the display has caught up).
        let request = stream(start)
        for (index, socket) in sockets.enumerated() {
            guard ParkedDisplaysRun.arm(epoll, socket, index: index, first: true),
                ParkedDisplaysRun.sendAll(socket, request)
            else {
                outcome.failures.append("open: errno \(errno)")
                return outcome
            }
        }
        var open = Set<Int>()
        let openBy = monotonicNanos() + 60_000_000_000
        while open.count < sockets.count, monotonicNanos() < openBy {
            let ready = epoll_wait(epoll, &events, Int32(events.count), 100)
            for event in events[..<max(0, Int(ready))] {
                let index = Int(event.data.u32)
                let count = recv(sockets[index], &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0, buffer[..<count].contains(UInt8(ascii: "{")) { open.insert(index) }
                if count != 0 { _ = ParkedDisplaysRun.arm(epoll, sockets[index], index: index, first: false) }
            }
        }
        guard open.count == sockets.count else {
            outcome.failures.append("\(sockets.count - open.count) streams did not open within 60 s")
            return outcome
        }

        let kiosk: HTTPConnection
        do { kiosk = try HTTPConnection(port: port) } catch {
            outcome.failures.append(error.description)
            return outcome
        }
        for round in 0..<rounds {
            usleep(1_000_000)  // quiet: the last round's events are read, every stream waits
            for socket in sockets {
                while recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
            }
            for (index, socket) in sockets.enumerated() {
                _ = ParkedDisplaysRun.arm(epoll, socket, index: index, first: false)
            }
            do {
                let response = try kiosk.exchange(order(round))
                let placed = monotonicNanos()
                guard response.status == 201 else {
                    outcome.failures.append("order answered \(response.status)")
                    continue
                }
                var answered = 0
                let deadline = placed + 10_000_000_000
                while answered < sockets.count, monotonicNanos() < deadline {
                    let ready = epoll_wait(epoll, &events, Int32(events.count), 100)
                    guard ready > 0 else { continue }
                    defer { usleep(ParkedDisplaysRun.readInterval) }
                    let now = monotonicNanos()
                    for event in events[..<Int(ready)] {
                        let index = Int(event.data.u32)
                        let count = recv(sockets[index], &buffer, buffer.count, Int32(MSG_DONTWAIT))
                        if count > 0, Self.contains(buffer[..<count], Self.event) {
                            outcome.latencies.append(now - placed)
                            answered += 1
                        } else if count != 0 {
                            _ = ParkedDisplaysRun.arm(epoll, sockets[index], index: index, first: false)  // a comment
                        }  // closed: it will not answer, and counts as missing
                    }
                }
                outcome.missing += sockets.count - answered
                outcome.roundP99s.append(
                    LatencySummary(Array(outcome.latencies.suffix(answered))).milliseconds(atPercentile: 99))
            } catch {
                outcome.failures.append(error.description)
            }
        }
        return outcome
    }

    static func contains(_ bytes: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        var index = bytes.startIndex
        while index <= bytes.endIndex - needle.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
