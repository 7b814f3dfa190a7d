import CanteenCore
import Foundation
import Logging
import ServiceLifecycle

/// Deletes idempotency records once they are older than the retention (24 hours), hourly.
struct IdempotencyPurgeService: Service {
    static let retention: TimeInterval = 24 * 3600

    let idempotency: any IdempotencyRepository
    let clock: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let purged = try await idempotency.purgeIdempotencyKeys(createdBefore: clock() - Self.retention)
                if purged > 0 { logger.info("purged \(purged) idempotency keys older than 24 hours") }
            } catch {
                logger.warning("purging idempotency keys failed: \(error)")
            }
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
