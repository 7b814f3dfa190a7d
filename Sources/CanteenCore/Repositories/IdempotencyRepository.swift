import Foundation

/// Where idempotency records are kept (written with their order by `OrderRepository`).
public protocol IdempotencyRepository: Sendable {
    /// Deletes idempotency records created before `cutoff`; returns how many.
    func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int
}
