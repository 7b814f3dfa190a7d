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
    /// How long the ticket takes to prepare (its longest item), or nil when no prep time is known.
    public var prepSeconds: Int?
    /// When a ticket held at placement fires (kept after it fired); nil for a ticket fired at once.
    public var fireAt: Date?
    /// When the ticket became `new` (reached the station); nil while it is held.
    public var firedAt: Date?
    /// When the kitchen started it (moved it to `preparing`); nil before, or after an undo.
    public var startedAt: Date?
    /// When it became ready; nil before, or after a recall to `preparing`.
    public var finishedAt: Date?

    public init(
        id: String, orderID: String, cafeID: String, station: String, status: TicketStatus,
        sequence: Int64, createdAt: Date, updatedAt: Date, prepSeconds: Int? = nil, fireAt: Date? = nil,
        firedAt: Date? = nil, startedAt: Date? = nil, finishedAt: Date? = nil
    ) {
        self.id = id
        self.orderID = orderID
        self.cafeID = cafeID
        self.station = station
        self.status = status
        self.sequence = sequence
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.prepSeconds = prepSeconds
        self.fireAt = fireAt
        self.firedAt = firedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// The status it was written with: held when it had a fire time, else new.
    public var placedStatus: TicketStatus { fireAt == nil ? .new : .held }

    /// The ticket after a move to `next` at `instant`, its kitchen times kept in step: firing
    /// stamps `firedAt`, starting `startedAt`, becoming ready `finishedAt`; an undo clears the
    /// time of the step it undoes. `invalid_transition` when the move is not allowed.
    public func moved(to next: TicketStatus, at instant: Date) throws(CanteenError) -> Ticket {
        var ticket = self
        ticket.status = try status.moved(to: next)
        ticket.updatedAt = instant
        switch (status, next) {
        case (.held, .new): ticket.firedAt = instant
        case (.new, .preparing): ticket.startedAt = instant
        case (.preparing, .new): ticket.startedAt = nil
        case (.preparing, .ready): ticket.finishedAt = instant
        case (.ready, .preparing): ticket.finishedAt = nil
        default: break
        }
        return ticket
    }
}

/// Where a ticket is in the kitchen.
public enum TicketStatus: String, CaseIterable, Hashable, Sendable, Codable {
    /// Written, but kept from its station until its fire time, so that an order's tickets finish together.
    case held
    case new, preparing, ready
    case pickedUp = "picked_up"
    case cancelled

    /// Picked up and cancelled tickets are finished; the others are open.
    public var isOpen: Bool { self != .pickedUp && self != .cancelled }

    /// The open statuses (a display without a cursor starts from these).
    public static let open: [TicketStatus] = [.held, .new, .preparing, .ready]

    /// Statuses of work a station still has to do (held, new or preparing).
    public static let queued: [TicketStatus] = [.held, .new, .preparing]

    /// held → new (fired, by its timer or by the kitchen); new → preparing → ready → picked_up;
    /// each step but firing undone one step back (preparing → new, ready → preparing,
    /// picked_up → ready: the kitchen's recall); any open state → cancelled.
    public func canMove(to next: TicketStatus) -> Bool {
        switch (self, next) {
        case (.held, .new), (.new, .preparing), (.preparing, .ready), (.ready, .pickedUp): true
        case (.preparing, .new), (.ready, .preparing), (.pickedUp, .ready): true
        case (_, .cancelled): isOpen
        default: false
        }
    }

    /// The move, or `invalid_transition` (409) naming the current state.
    public func moved(to next: TicketStatus) throws(CanteenError) -> TicketStatus {
        guard canMove(to: next) else {
            throw CanteenError(
                .conflict, code: .invalidTransition,
                message: "a ticket that is \(rawValue) cannot become \(next.rawValue)",
                field: "status", parameters: ["current": rawValue, "requested": next.rawValue])
        }
        return next
    }
}
