import Foundation

/// Where order events are kept. The order and ticket repositories write them; this reads them
/// and tells this process about new ones.
public protocol OrderEventRepository: Sendable {
    /// An order with its version and the token that placed it, or nil.
    func followedOrder(id: String) async throws -> FollowedOrder?
    /// The events of one order after `sequence`, oldest first.
    func events(orderID: String, after sequence: Int64) async throws -> [OrderEvent]
    /// At most `limit` events of every order after `sequence`, oldest first.
    func events(after sequence: Int64, limit: Int) async throws -> [OrderEvent]
    /// Called right after every commit of this process that wrote events, in commit order.
    func onOrderEvents(_ observer: @escaping @Sendable ([OrderEvent]) -> Void)
}
