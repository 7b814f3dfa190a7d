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

/// Where the capacity used in each pickup window is kept.
public protocol PickupCapacityRepository: Sendable {
    /// The windows a café offers on a café-local date, with remaining capacity.
    func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability]
}

// MARK: - Idempotency records

/// Where idempotency records are kept (written with their order by `OrderRepository`).
public protocol IdempotencyRepository: Sendable {
    /// Deletes idempotency records created before `cutoff`; returns how many.
    func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int
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

/// Where kitchen tickets are kept. Every change of a ticket takes the next value of one
/// sequence; a ticket's `sequence` is that of its latest change.
public protocol TicketRepository: Sendable {
    /// One ticket, or nil.
    func ticket(id: String) async throws -> TicketView?
    /// Moves a ticket to `status` (`invalid_transition` naming the current state when not allowed).
    func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView
    /// At most `limit` tickets of a café changed after `cursor`, oldest change first, optionally
    /// of one station; without a cursor, the open tickets. The cursor of the page is the last
    /// change it holds (or, when the page is not full, the latest change of the whole feed).
    func ticketChanges(cafeID: String, after cursor: Int64?, station: String?, limit: Int) async throws -> TicketFeedPage
    /// The latest change committed by any writer, with the latest change of every café changed
    /// after `sequence` (all cafés with tickets for 0).
    func changes(after sequence: Int64) async throws -> FeedHead
    /// Called after every commit of this process that changed tickets, with each café's latest change.
    func onTicketChanges(_ observer: @escaping @Sendable ([String: Int64]) -> Void)
    /// How many tickets of the café are open (new, preparing or ready), for metrics.
    func openTicketCount(cafeID: String) async throws -> Int
}

extension TicketRepository {
    /// Counts the open tickets by reading them; a store can answer with one query instead.
    public func openTicketCount(cafeID: String) async throws -> Int {
        try await ticketChanges(cafeID: cafeID, after: nil, station: nil, limit: .max).tickets.count
    }
}
