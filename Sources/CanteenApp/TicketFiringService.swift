import CanteenCore
import Foundation
import Logging
import ServiceLifecycle

/// The durable timer of firing by prep time: fires held tickets when their fire time comes.
///
/// Nothing is kept in memory: each round asks the store for the due tickets and fires them in
/// one transaction (`KitchenRepository.fireDueTickets`), so a server that was down fires what
/// came due meanwhile as soon as it is back, and servers sharing a PostgreSQL database fire
/// each ticket once between them. A round runs at the next known fire time, and at least every
/// `pollInterval` (a ticket held by another server or process, or placed since the last round).
struct TicketFiringService: Service {
    /// The most tickets fired per transaction; a round continues while rounds come back full.
    static let batchSize = 200

    let kitchen: any KitchenRepository
    let clock: @Sendable () -> Date
    /// How fast `clock` runs against real time (1; a simulation's accelerated clock runs faster).
    let clockRate: Double
    /// The longest wait between two rounds, in the clock's time.
    let pollInterval: Duration
    let logger: Logger

    func run() async throws {
        var failing = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var wait = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
            do {
                var round: FiringRound
                repeat {
                    round = try await kitchen.fireDueTickets(limit: Self.batchSize)
                    if !round.fired.isEmpty { logger.debug("fired \(round.fired.count) held tickets") }
                } while round.fired.count == Self.batchSize
                if let next = round.nextFireAt { wait = min(wait, next.timeIntervalSince(clock())) }
                if failing { logger.notice("firing held tickets works again") }
                failing = false
            } catch {
                // Once per outage, not every round of it.
                if !failing { logger.warning("firing held tickets failed: \(error)") }
                failing = true
            }
            let real = max(wait, 0) / clockRate
            _ = try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: .milliseconds(Int64(max(real * 1000, 5).rounded(.up))))
            }
        }
    }
}
