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

/// Where the kitchen's timing is read and held tickets are fired.
public protocol KitchenRepository: Sendable {
    /// The café's kitchen now: its open tickets (those that reached their station within
    /// `KitchenLoad.horizon`, and every held one) and the tickets that became ready in the last
    /// `KitchenLoad.history`.
    func kitchenLoad(cafeID: String) async throws -> KitchenLoad
    /// Fires up to `limit` held tickets whose fire time has come (held → new), oldest fire time
    /// first, in one transaction; each exactly once, whichever process or server asks. Each
    /// change takes its feed sequence and reaches the displays like any other.
    func fireDueTickets(limit: Int) async throws -> FiringRound
}

/// Where what is left of each limited dish (`dailyQuantity`) is kept, per café-local day.
/// Orders take from it in their own transaction (`OrderRepository`); this reads and sets it.
public protocol DailyStockRepository: Sendable {
    /// What is left of the café's items on `date`, for the items taken from or set that day
    /// (an item not listed has its whole daily quantity left: `DailyStock.remaining`).
    func remaining(cafeID: String, date: LocalDate) async throws -> [String: Int]
    /// Sets what is left today (the café's local date now) of an item with a daily quantity:
    /// `cafe_not_found`, `item_not_found`, or `invalid_field` for an item without one.
    /// `audit` (when given) is recorded in the same transaction, with the count before and after.
    func setRemaining(cafeID: String, itemID: String, remaining: Int, audit: AuditEntry?) async throws -> ItemStock
}

extension DailyStockRepository {
    /// Sets what is left without an audit entry (the command line, tests).
    public func setRemaining(cafeID: String, itemID: String, remaining: Int) async throws -> ItemStock {
        try await setRemaining(cafeID: cafeID, itemID: itemID, remaining: remaining, audit: nil)
    }
}

extension ItemStock {
    /// What the audit log shows of a limited dish's day: what is left.
    public static func audited(remaining: Int) -> JSONValue { .object(["remaining": .int(Int64(remaining))]) }
}
