import Foundation
import Synchronization

/// N keep-alive connections, each sending its next request as soon as the previous answer
/// arrives, for a warm-up and then a measured duration. With several ports (servers), the
/// connections are spread over them in turn.
struct ClosedLoopLoad {
    /// What one measured run observed.
    struct Outcome {
        let completed: Int
        let seconds: Double
        let latency: LatencySummary
        let statuses: [Int: Int]
        let firstUnexpected: String?
        let failures: [String]

        var perSecond: Double { Double(completed) / seconds }
    }

    let ports: [Int]
    let connections: Int
    let warmup: Double
    let duration: Double
    let expectedStatus: Int
    /// The request bytes for (connection, sequence number within that connection).
    let request: @Sendable (Int, Int) -> [UInt8]

    private struct WorkerResult {
        var latencies: [UInt64] = []
        var statuses: [Int: Int] = [:]
        var firstUnexpected: String?
        var failure: String?
    }

    func run() -> Outcome {
        let results = Mutex<[WorkerResult]>([])
        let done = DispatchGroup()
        let begin = monotonicNanos() + 100_000_000
        let measureFrom = begin + UInt64(warmup * 1e9)
        let end = measureFrom + UInt64(duration * 1e9)
        let (ports, expected, request) = (ports, expectedStatus, request)
        for worker in 0..<connections {
            done.enter()
            let thread = Thread {
                var result = WorkerResult()
                result.latencies.reserveCapacity(65_536)
                do {
                    let connection = try HTTPConnection(port: ports[worker % ports.count])
                    while monotonicNanos() < begin { usleep(1_000) }
                    var sequence = 0
                    while true {
                        let bytes = request(worker, sequence)
                        sequence += 1
                        let sent = monotonicNanos()
                        let response = try connection.exchange(bytes)
                        let received = monotonicNanos()
                        if received >= measureFrom && received < end {
                            result.latencies.append(received - sent)
                            result.statuses[response.status, default: 0] += 1
                            if response.status != expected && result.firstUnexpected == nil {
                                result.firstUnexpected =
                                    "\(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                            }
                        }
                        if received >= end { break }
                    }
                } catch {
                    result.failure = "\(error)"
                }
                results.withLock { $0.append(result) }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        done.wait()
        let all = results.withLock { $0 }
        var statuses: [Int: Int] = [:]
        for result in all { statuses.merge(result.statuses, uniquingKeysWith: +) }
        let latencies = all.flatMap(\.latencies)
        return Outcome(
            completed: statuses[expectedStatus] ?? 0, seconds: duration,
            latency: LatencySummary(latencies), statuses: statuses,
            firstUnexpected: all.lazy.compactMap(\.firstUnexpected).first,
            failures: all.compactMap(\.failure))
    }
}
