import Foundation

/// What one quarter hour of a café's orders came to, as the store sums it: the orders placed
/// in it (by café-local date and the UTC quarter hour they were placed in), in one currency,
/// cancelled or not.
public struct SalesBucket: Hashable, Sendable {
    /// The café-local date the orders were placed on.
    public var localDate: LocalDate
    /// The start of the quarter hour (UTC, a multiple of 900 s) they were placed in: every time
    /// zone's offset is a whole number of quarter hours, so each falls in one local hour.
    public var start: Date
    public var currency: String
    public var cancelled: Bool
    public var orders: Int
    public var items: Int
    /// The orders' totals (what they charged) in minor units.
    public var total: Int64

    public init(
        localDate: LocalDate, start: Date, currency: String, cancelled: Bool, orders: Int, items: Int,
        total: Int64
    ) {
        self.localDate = localDate
        self.start = start
        self.currency = currency
        self.cancelled = cancelled
        self.orders = orders
        self.items = items
        self.total = total
    }

    /// The length of a bucket, in seconds.
    public static let seconds: Int64 = 900
}

/// What one item sold in a period, in one currency: kept and cancelled orders apart.
public struct ItemSales: Hashable, Sendable {
    public var itemID: String
    /// The item's names as its order lines keep them.
    public var names: LocalizedText
    public var currency: String
    public var sold: SalesFigures
    public var cancelled: SalesFigures

    public init(itemID: String, names: LocalizedText, currency: String, sold: SalesFigures, cancelled: SalesFigures) {
        self.itemID = itemID
        self.names = names
        self.currency = currency
        self.sold = sold
        self.cancelled = cancelled
    }
}

/// Orders, items and money (minor units) of a group of orders.
public struct SalesFigures: Hashable, Sendable {
    public var orders: Int
    public var items: Int
    public var amount: Int64

    public init(orders: Int = 0, items: Int = 0, amount: Int64 = 0) {
        self.orders = orders
        self.items = items
        self.amount = amount
    }

    public static let zero = SalesFigures()

    public static func + (lhs: SalesFigures, rhs: SalesFigures) -> SalesFigures {
        SalesFigures(orders: lhs.orders + rhs.orders, items: lhs.items + rhs.items, amount: lhs.amount + rhs.amount)
    }
}

/// One kitchen ticket of a period, as the kitchen report needs it.
public struct ReportedTicket: Hashable, Sendable {
    public var station: String
    public var cancelled: Bool
    /// Seconds from the order being placed to the ticket marked ready (nil: never ready).
    public var secondsToReady: Int64?
    /// Whether it was ready by the start of its order's pickup window (nil: never ready).
    public var readyByWindowStart: Bool?

    public init(station: String, cancelled: Bool, secondsToReady: Int64?, readyByWindowStart: Bool?) {
        self.station = station
        self.cancelled = cancelled
        self.secondsToReady = secondsToReady
        self.readyByWindowStart = readyByWindowStart
    }
}

/// A period's orders as the kitchen saw them: how many there were (cancelled ones apart), how
/// many reached `ready` (the `order.ready` event) and how many of those by their window's start.
public struct OrderReadiness: Hashable, Sendable {
    public var orders: Int
    public var cancelled: Int
    public var ready: Int
    public var readyByWindowStart: Int

    public init(orders: Int, cancelled: Int, ready: Int, readyByWindowStart: Int) {
        self.orders = orders
        self.cancelled = cancelled
        self.ready = ready
        self.readyByWindowStart = readyByWindowStart
    }
}

/// What happened in one pickup window: orders taken (cancelled apart), capacity units used now,
/// and orders refused because it was full.
public struct WindowFigures: Hashable, Sendable {
    public var orders: Int
    public var cancelled: Int
    public var used: Int
    public var refused: Int

    public init(orders: Int = 0, cancelled: Int = 0, used: Int = 0, refused: Int = 0) {
        self.orders = orders
        self.cancelled = cancelled
        self.used = used
        self.refused = refused
    }
}
