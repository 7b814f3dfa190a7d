import Foundation

/// The simulation's time: an instant `epoch` when it started, running `rate` times as fast as
/// real time. The server under test reads the same clock (an accelerated one when the simulation
/// starts its own server; the real one, at rate 1, against a server given by URL).
public struct SimulationClock: Sendable {
    public let epoch: Date
    public let rate: Double
    private let started: ContinuousClock.Instant

    public init(epoch: Date, rate: Double) {
        self.epoch = epoch
        self.rate = rate
        started = .now
    }

    /// The simulated instant now.
    public func now() -> Date {
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return epoch + seconds * rate
    }

    /// Sleeps until the simulated instant `instant`.
    public func sleep(until instant: Date) async throws {
        let real = instant.timeIntervalSince(now()) / rate
        if real > 0 { try await Task.sleep(for: .milliseconds(Int64((real * 1000).rounded(.up)))) }
    }
}
