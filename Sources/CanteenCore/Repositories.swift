import Foundation

/// A café with the current version of its menu (the version moves on every change).
public struct VersionedCafe: Hashable, Sendable {
    public var cafe: Cafe
    public var menuVersion: Int64

    public init(cafe: Cafe, menuVersion: Int64) {
        self.cafe = cafe
        self.menuVersion = menuVersion
    }
}

/// A café's menu as stored: definition, sold-out marks and version.
public struct CafeMenu: Hashable, Sendable {
    public var cafe: Cafe
    public var menu: Menu
    /// Sold-out marks by item id.
    public var soldOut: [String: SoldOut]
    public var version: Int64

    public init(cafe: Cafe, menu: Menu, soldOut: [String: SoldOut], version: Int64) {
        self.cafe = cafe
        self.menu = menu
        self.soldOut = soldOut
        self.version = version
    }
}

/// A change ops make to one menu item.
public enum MenuItemChange: Hashable, Sendable {
    /// Mark sold out (until an instant, or indefinitely) or back in stock.
    case soldOut(Bool, until: Date?)
    /// A new price in minor units.
    case price(Int64)
}

/// Where cafés and menus are kept.
public protocol CafeRepository: Sendable {
    /// Every café, ordered by id.
    func cafes() async throws -> [VersionedCafe]
    /// One café, or nil.
    func cafe(id: String) async throws -> VersionedCafe?
    /// Creates or updates a café's configuration; bumps its menu version. Returns the new state.
    func saveCafe(_ cafe: Cafe) async throws -> VersionedCafe
    /// The café's menu with sold-out marks, or nil when the café does not exist.
    func menu(cafeID: String) async throws -> CafeMenu?
    /// Replaces the café's menu; sold-out marks of items that remain are kept. Returns the new version.
    func replaceMenu(cafeID: String, with menu: Menu) async throws -> Int64
    /// Applies `changes` to one item in one transaction. Returns the new version.
    func updateItem(cafeID: String, itemID: String, changes: [MenuItemChange]) async throws -> Int64
    /// Validated café files replace the cafés they name, all in one transaction.
    func importCafes(_ documents: [(cafe: Cafe, menu: Menu)]) async throws
    /// Deletes a café with its menu and beacons; `cafe_not_found`, or `cafe_in_use` (409) while
    /// orders reference it. Preferences naming it are kept (café resolution falls back).
    func deleteCafe(id: String) async throws
}

/// Where access tokens are kept (hashed).
public protocol TokenRepository: Sendable {
    /// Creates a token; the returned secret is shown once and never stored.
    func createToken(role: Role, cafeID: String?, name: String?) async throws -> (token: AccessToken, secret: String)
    /// Every token, newest first, revoked ones included.
    func tokens() async throws -> [AccessToken]
    /// Revokes a token by its public id; throws `token_not_found`.
    func revokeToken(id: String) async throws
    /// The live token whose secret this is, or nil.
    func authenticate(secret: String) async throws -> AccessToken?
}

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

/// An idempotency key as the store sees it: scoped to one token, with the request's fingerprint.
public struct IdempotencyKey: Hashable, Sendable {
    public var tokenID: String
    public var key: String
    /// SHA-256 of the request's canonical JSON.
    public var requestHash: Data

    public init(tokenID: String, key: String, requestHash: Data) {
        self.tokenID = tokenID
        self.key = key
        self.requestHash = requestHash
    }
}

/// A response kept for an idempotency key, replayed byte for byte.
public struct StoredResponse: Hashable, Sendable {
    public var status: Int
    public var body: Data
    /// The body's language (`Content-Language`), kept so that a replay says the same.
    public var contentLanguage: String?

    public init(status: Int, body: Data, contentLanguage: String? = nil) {
        self.status = status
        self.body = body
        self.contentLanguage = contentLanguage
    }
}

/// The outcome of placing an order: a new order (and the response stored for its key) or a replay.
public enum PlacementResult: Sendable {
    case placed(Order, StoredResponse)
    case replayed(StoredResponse)
}

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

/// One answer of the kitchen feed: the tickets changed after a cursor, and the next cursor.
public struct TicketFeedPage: Hashable, Sendable {
    public var tickets: [TicketView]
    public var cursor: Int64

    public init(tickets: [TicketView], cursor: Int64) {
        self.tickets = tickets
        self.cursor = cursor
    }
}

/// Where orders, pickup capacity, kitchen tickets and idempotency keys are kept.
public protocol OrderRepository: Sendable {
    /// Prices and places an order, taking pickup capacity in the same transaction.
    /// With a key: a stored response for the same request is replayed; another request under
    /// the same key is `idempotency_key_reused`. `render` builds the response stored with the order.
    func placeOrder(_ request: OrderRequest, key: IdempotencyKey?,
                    render: @escaping @Sendable (Order, Cafe) throws -> StoredResponse) async throws -> PlacementResult
    /// One order with its tickets, or nil.
    func order(id: String) async throws -> Order?
    /// Cancels the order's open tickets and frees its capacity; `order_not_cancellable` once picked up.
    func cancelOrder(id: String) async throws -> Order
    /// The windows a café offers on a café-local date, with remaining capacity.
    func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability]
    /// Tickets of a café changed after `cursor` (every open ticket when nil), optionally of one station.
    func ticketFeed(cafeID: String, after cursor: Int64?, station: String?) async throws -> TicketFeedPage
    /// One ticket, or nil.
    func ticket(id: String) async throws -> TicketView?
    /// Moves a ticket to `status` (`invalid_transition` naming the current state when not allowed).
    func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView
    /// The latest feed sequence of a café (0 when none); changes wake `waitForChange`.
    func latestSequence(cafeID: String) async throws -> Int64
    /// Returns when the café has a change after `cursor`, or after `timeout`; true when it changed.
    func waitForChange(cafeID: String, after cursor: Int64, timeout: Duration) async -> Bool
    /// Deletes idempotency records created before `cutoff`; returns how many.
    func purgeIdempotencyKeys(createdBefore cutoff: Date) async throws -> Int
    /// The café of the user's most recent order (cancelled ones included), or nil.
    func latestOrderCafeID(userID: String) async throws -> String?
}
