import Foundation

// MARK: - Orders

/// An idempotency key as the store sees it: scoped to one token, with the request's fingerprint
/// and the language its first answer was given in.
public struct IdempotencyKey: Hashable, Sendable {
    public var tokenID: String
    public var key: String
    /// SHA-256 of the request's canonical JSON.
    public var requestHash: Data
    /// What the first answer's language was chosen from (the request's `Accept-Language`), kept
    /// so that a replay is rendered in the same language.
    public var answerLanguage: String?

    public init(tokenID: String, key: String, requestHash: Data, answerLanguage: String? = nil) {
        self.tokenID = tokenID
        self.key = key
        self.requestHash = requestHash
        self.answerLanguage = answerLanguage
    }
}

/// What placing an order did: a new order, or the order an earlier request with the same key placed.
public enum OrderPlacement: Hashable, Sendable {
    /// A new order, committed.
    case placed(Order)
    /// The key was used before with the same request: the order as it was placed, and the
    /// language its first answer was given in.
    case replayed(Order, answerLanguage: String?)
    /// A key stored before orders were rendered after commit: its first answer's bytes.
    case replayedAnswer(Data, contentLanguage: String?)
}

// MARK: - Pickup capacity

/// A pickup window with what is left of its capacity.
public struct PickupWindowAvailability: Hashable, Sendable {
    public var window: PickupWindow
    public var capacity: Int
    public var remaining: Int

    public init(window: PickupWindow, capacity: Int, remaining: Int) {
        self.window = window
        self.capacity = capacity
        self.remaining = remaining
    }
}

// MARK: - Kitchen tickets

/// A kitchen ticket with what the display needs of its order.
public struct TicketView: Hashable, Sendable {
    public var ticket: Ticket
    public var orderNumber: Int
    public var customer: Customer
    public var pickup: PickupWindow
    /// The order's lines for this ticket's station.
    public var lines: [OrderLine]

    public init(ticket: Ticket, orderNumber: Int, customer: Customer, pickup: PickupWindow, lines: [OrderLine]) {
        self.ticket = ticket
        self.orderNumber = orderNumber
        self.customer = customer
        self.pickup = pickup
        self.lines = lines
    }
}

/// One page of a café's ticket changes: the tickets changed after a cursor, and the next cursor.
public struct TicketFeedPage: Hashable, Sendable {
    public var tickets: [TicketView]
    public var cursor: Int64

    public init(tickets: [TicketView], cursor: Int64) {
        self.tickets = tickets
        self.cursor = cursor
    }
}

/// Where the kitchen feed stands: its latest change, and the latest change per café.
public struct FeedHead: Hashable, Sendable {
    public var latest: Int64
    public var cafes: [String: Int64]

    public init(latest: Int64, cafes: [String: Int64]) {
        self.latest = latest
        self.cafes = cafes
    }
}

/// A café's open tickets counted (the console's overview): how many per station and status, how
/// many orders they belong to, and when the oldest one not yet ready was placed.
public struct OpenTicketCounts: Hashable, Sendable {
    public var byStation: [String: [TicketStatus: Int]]
    public var orders: Int
    public var oldestNotReady: Date?

    public init(byStation: [String: [TicketStatus: Int]], orders: Int, oldestNotReady: Date?) {
        self.byStation = byStation
        self.orders = orders
        self.oldestNotReady = oldestNotReady
    }

    /// Every open ticket of the café.
    public var tickets: Int { byStation.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
}
