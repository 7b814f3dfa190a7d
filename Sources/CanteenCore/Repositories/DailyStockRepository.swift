import CanteenJSON
import Foundation

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
