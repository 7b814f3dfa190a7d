import CanteenJSON
import Foundation

/// What one firing round did: the tickets it fired, and when the next held ticket is due.
public struct FiringRound: Hashable, Sendable {
    public var fired: [Ticket]
    public var nextFireAt: Date?

    public init(fired: [Ticket], nextFireAt: Date?) {
        self.fired = fired
        self.nextFireAt = nextFireAt
    }
}

extension ItemStock {
    /// What the audit log shows of a limited dish's day: what is left.
    public static func audited(remaining: Int) -> JSONValue { .object(["remaining": .int(Int64(remaining))]) }
}
