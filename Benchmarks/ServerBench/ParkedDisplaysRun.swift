import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Many displays parked in a long-poll at once, woken by one order: how long after the order's
/// `201` each display has its answer. One thread multiplexes the displays' sockets with epoll,
/// each socket armed once per round (`EPOLLONESHOT`), so the client needs no thread per display
/// and pays for the sockets that answer, not for all of them at every wake-up: `poll()` over
/// 2,000 sockets took a fifth of the machine's two cores while the server was answering, and
/// slowed the server it measured.
///
/// The client also looks at its sockets at most once per `readInterval` (1 ms). Client and
/// server share two cores: a client woken by every answer preempted the server on its core at
/// each one (the scheduler favours a thread that slept), which made that core's half of the
/// displays about twice as slow. The figures stay honest the other way: an answer is timed when
/// the client looks, so each latency is over-stated by up to `readInterval`, never under-stated.
struct ParkedDisplaysRun {
    let port: Int
    let displays: Int
    let rounds: Int
    let poll: (Int64) -> [UInt8]
    let order: (Int) -> [UInt8]
    /// The feed's latest cursor, paging from a known one (nil: from the open tickets).
    let cursor: (Int64?) throws(BenchError) -> Int64

    struct Outcome {
        /// Nanoseconds from each order's 201 to each display's first answer byte.
        var latencies: [UInt64] = []
        /// Each order's own p99, in milliseconds: how much one wake-up differs from the next.
        var roundP99s: [Double] = []
        var missing = 0
        var failures: [String] = []
    }

    /// The shortest time between two looks at the sockets.
    static let readInterval: useconds_t = 1_000

    func run() -> Outcome {
        var outcome = Outcome()
        // The cursor first: paging a big feed to its end takes seconds, and the server closes a
        // connection that has sent no request head for 10 s (its header timeout).
        var known: Int64
        do { known = try cursor(nil) } catch {
            outcome.failures.append(error.description)
            return outcome
        }
        let sockets: [Int32]
        do {
            sockets = try (0..<displays).map { _ throws(BenchError) in try Self.connect(port: port) }
        } catch {
            outcome.failures.append(error.description)
            return outcome
        }
        defer { for socket in sockets { close(socket) } }

        let kiosk: HTTPConnection
        do { kiosk = try HTTPConnection(port: port) } catch {
            outcome.failures.append(error.description)
            return outcome
        }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            outcome.failures.append("epoll_create1: errno \(errno)")
            return outcome
        }
        defer { close(epoll) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        for round in 0..<rounds {
            do {
                let start = try cursor(known)
                known = start
                let request = poll(start)
                for (index, socket) in sockets.enumerated() {
                    // Each display's first answer byte is reported once, at its first readiness.
                    guard Self.arm(epoll, socket, index: index, first: round == 0) else {
                        outcome.failures.append("epoll_ctl: errno \(errno)")
                        continue
                    }
                    if !Self.sendAll(socket, request) { outcome.failures.append("send: errno \(errno)") }
                }
                usleep(1_500_000)  // let every display park
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
                    defer { usleep(Self.readInterval) }
                    let now = monotonicNanos()
                    for event in events[..<Int(ready)] {
                        let index = Int(event.data.u32)
                        // The first bytes mark the answer; the rest is drained after the round.
                        let count = recv(sockets[index], &buffer, buffer.count, Int32(MSG_DONTWAIT))
                        if count > 0 {
                            outcome.latencies.append(now - placed)
                            answered += 1
                        } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                            _ = Self.arm(epoll, sockets[index], index: index, first: false)  // nothing yet
                        }  // closed: it will not answer, and counts as missing
                    }
                }
                outcome.missing += sockets.count - answered
                outcome.roundP99s.append(
                    LatencySummary(Array(outcome.latencies.suffix(answered))).milliseconds(atPercentile: 99))
                // Let the rest of each answer arrive, then drain it before the next round.
                usleep(200_000)
                for socket in sockets {
                    while recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
                }
            } catch {
                outcome.failures.append(error.description)
            }
        }
        return outcome
    }

    /// Arms `socket` for one report of readability, carrying its index.
    static func arm(_ epoll: Int32, _ socket: Int32, index: Int, first: Bool) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue
        event.data.u32 = UInt32(index)
        return epoll_ctl(epoll, first ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, socket, &event) == 0
    }

    static func connect(port: Int) throws(BenchError) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket", "socket(): errno \(errno) (raise ulimit -n)") }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            throw BenchError("connect", "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return socket
    }

    static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
