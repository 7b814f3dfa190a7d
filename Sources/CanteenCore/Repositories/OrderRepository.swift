import Foundation

/// Where orders are kept. Placing one prices it against the current menu, takes its pickup
/// capacity, numbers it, writes its tickets and its idempotency record in one transaction.
public protocol OrderRepository: Sendable {
    /// Prices and places an order. With a key: the same request again is replayed; another
    /// request under the same key is `idempotency_key_reused`.
    func placeOrder(_ request: OrderRequest, key: IdempotencyKey?) async throws -> OrderPlacement
    /// One order with its tickets, or nil.
    func order(id: String) async throws -> Order?
    /// Cancels the order's open tickets and frees its capacity; `order_not_cancellable` once picked up.
    func cancelOrder(id: String) async throws -> Order
    /// The café of the user's most recent order (cancelled ones included), or nil.
    func latestOrderCafeID(userID: String) async throws -> String?
}
