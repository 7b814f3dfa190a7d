import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What idle connections cost the server: its resident memory (`VmRSS` of /proc/PID/status)
/// before and after `count` connections each sent `request` and got the first bytes of its
/// answer that carry `marker`, then sat idle (a keep-alive after `GET /healthz`, or an open
/// ticket event stream after its first event). The connections open in batches of `batch`,
/// each batch answered before the next (the server's accept backlog is 256), and all stay open
/// until the memory is read.
struct IdleConnectionsRun {
    let port: Int
    let count: Int
    let serverPID: Int32
    let request: [UInt8]
    let marker: [UInt8]
    var batch = 250

    struct Outcome {
        var rssBefore = 0
        var rssAfter = 0
        var opened = 0
        var seconds = 0.0
        var failures: [String] = []
        /// Bytes of server memory per idle connection.
        var bytesPerConnection: Double { opened > 0 ? Double(rssAfter - rssBefore) / Double(opened) : 0 }
    }

    /// The process's resident memory in bytes (0 when it cannot be read).
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    func run() -> Outcome {
        var outcome = Outcome()
        usleep(500_000)
        outcome.rssBefore = Self.residentBytes(serverPID)
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0, outcome.rssBefore > 0 else {
            outcome.failures.append("epoll_create1 or /proc/\(serverPID)/status: errno \(errno)")
            return outcome
        }
        defer { close(epoll) }
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        let began = monotonicNanos()
        while sockets.count < count, outcome.failures.isEmpty {
            var waiting = Set<Int>()
            for _ in 0..<min(batch, count - sockets.count) {
                do {
                    let socket = try ParkedDisplaysRun.connect(port: port)
                    let index = sockets.count
                    sockets.append(socket)
                    guard ParkedDisplaysRun.arm(epoll, socket, index: index, first: true),
                        ParkedDisplaysRun.sendAll(socket, request)
                    else {
                        outcome.failures.append("send: errno \(errno)")
                        break
                    }
                    waiting.insert(index)
                } catch {
                    outcome.failures.append(error.description)
                    break
                }
            }
            let deadline = monotonicNanos() + 30_000_000_000
            while !waiting.isEmpty, monotonicNanos() < deadline {
                let ready = epoll_wait(epoll, &events, Int32(events.count), 100)
                for event in events[..<max(0, Int(ready))] {
                    let index = Int(event.data.u32)
                    let read = recv(sockets[index], &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if read > 0, EventStreamsRun.contains(buffer[..<read], marker) {
                        waiting.remove(index)
                    } else if read != 0 {
                        _ = ParkedDisplaysRun.arm(epoll, sockets[index], index: index, first: false)
                    } else {
                        outcome.failures.append("connection \(index) closed by the server")
                        waiting.remove(index)
                    }
                }
            }
            if !waiting.isEmpty { outcome.failures.append("\(waiting.count) connections not answered within 30 s") }
        }
        outcome.seconds = Double(monotonicNanos() - began) / 1e9
        outcome.opened = sockets.count
        // Let the server finish what the last answers started, then read its memory.
        usleep(1_000_000)
        outcome.rssAfter = Self.residentBytes(serverPID)
        return outcome
    }
}
