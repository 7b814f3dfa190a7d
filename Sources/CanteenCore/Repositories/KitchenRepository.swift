import CanteenJSON
import Foundation

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
