import Foundation

// MARK: - Events

/// What happened to an order: one type per status it can reach.
public enum OrderEventType: String, CaseIterable, Hashable, Sendable {
    case placed = "order.placed"
    case preparing = "order.preparing"
    case ready = "order.ready"
    case pickedUp = "order.picked_up"
    case cancelled = "order.cancelled"

    /// The event of an order reaching `status`.
    public init(reaching status: OrderStatus) {
        switch status {
        case .placed: self = .placed
        case .preparing: self = .preparing
        case .ready: self = .ready
        case .pickedUp: self = .pickedUp
        case .cancelled: self = .cancelled
        }
    }

    /// The types a webhook may subscribe to (`order.preparing` is in an order's own stream only).
    public static let webhookTypes: [OrderEventType] = [.placed, .ready, .pickedUp, .cancelled]

    /// Picked up and cancelled orders change no more.
    public var isFinal: Bool { self == .pickedUp || self == .cancelled }
}

/// One change of an order's status, written in the same transaction as the change itself: the
/// outbox webhooks are delivered from, and the history an order's event stream replays.
public struct OrderEvent: Hashable, Sendable {
    /// Public id (`evt_…`), the same on every delivery, so receivers can de-duplicate.
    public var id: String
    /// The feed sequence of the ticket change that caused it: increasing in commit order.
    public var sequence: Int64
    /// The sequence of the order's event before this one (nil for the first).
    public var previousSequence: Int64?
    public var orderID: String
    public var cafeID: String
    public var type: OrderEventType
    /// The status of each of the order's tickets just after the change; nil when the order was
    /// just placed (every ticket new).
    public var ticketStatuses: [String: TicketStatus]?
    public var createdAt: Date

    public init(
        id: String, sequence: Int64, previousSequence: Int64?, orderID: String, cafeID: String,
        type: OrderEventType, ticketStatuses: [String: TicketStatus]?, createdAt: Date
    ) {
        self.id = id
        self.sequence = sequence
        self.previousSequence = previousSequence
        self.orderID = orderID
        self.cafeID = cafeID
        self.type = type
        self.ticketStatuses = ticketStatuses
        self.createdAt = createdAt
    }

    /// `order` as it was just after this event: its tickets in the statuses the event recorded.
    public func applied(to order: Order) -> Order {
        guard let ticketStatuses else { return order.asPlaced }
        var order = order
        for index in order.tickets.indices {
            if let status = ticketStatuses[order.tickets[index].id] { order.tickets[index].status = status }
        }
        return order
    }
}

/// An order as someone following it sees it: the order, its latest event's sequence (the
/// version a client holds), and the token that placed it (who may follow it).
public struct FollowedOrder: Hashable, Sendable {
    public var order: Order
    /// The sequence of the order's latest event; 0 when it has none (placed before events existed).
    public var version: Int64
    /// The id of the token that placed the order.
    public var placedBy: String?

    public init(order: Order, version: Int64, placedBy: String?) {
        self.order = order
        self.version = version
        self.placedBy = placedBy
    }
}
