import Foundation

/// A kitchen ticket: the part of one order that one station prepares.
public struct Ticket: Hashable, Sendable {
    public var id: String
    public var orderID: String
    public var cafeID: String
    public var station: String
    public var status: TicketStatus
    /// Sequence number of the ticket's latest change (the feed cursor moves past it).
    public var sequence: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, orderID: String, cafeID: String, station: String, status: TicketStatus,
                sequence: Int64, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.orderID = orderID
        self.cafeID = cafeID
        self.station = station
        self.status = status
        self.sequence = sequence
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where a ticket is in the kitchen.
public enum TicketStatus: String, CaseIterable, Hashable, Sendable, Codable {
    case new, preparing, ready
    case pickedUp = "picked_up"
    case cancelled

    /// Picked up and cancelled tickets are finished; the others are open.
    public var isOpen: Bool { self != .pickedUp && self != .cancelled }

    /// new → preparing → ready → picked_up; each step undone one step back (preparing → new,
    /// ready → preparing, picked_up → ready: the kitchen's recall); any open state → cancelled.
    public func canMove(to next: TicketStatus) -> Bool {
        switch (self, next) {
        case (.new, .preparing), (.preparing, .ready), (.ready, .pickedUp): true
        case (.preparing, .new), (.ready, .preparing), (.pickedUp, .ready): true
        case (_, .cancelled): isOpen
        default: false
        }
    }

    /// The move, or `invalid_transition` (409) naming the current state.
    public func moved(to next: TicketStatus) throws(CanteenError) -> TicketStatus {
        guard canMove(to: next) else {
            throw CanteenError(.conflict, code: .invalidTransition,
                               message: "a ticket that is \(rawValue) cannot become \(next.rawValue)",
                               field: "status", parameters: ["current": rawValue, "requested": next.rawValue])
        }
        return next
    }
}
