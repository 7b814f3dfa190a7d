import CanteenJSON
import Foundation

/// What a kiosk asks for: validated shape, not yet priced or checked against the menu.
public struct OrderRequest: Hashable, Sendable {
    public var cafeID: String
    public var lines: [OrderLineRequest]
    public var pickup: PickupChoice
    public var customer: Customer
    /// The coupon code the kiosk sent (`ID.SIGNATURE`), as read from the request.
    public var couponCode: String?
    /// The coupon to redeem: set once the code's signature has been checked.
    public var couponID: String?

    public init(
        cafeID: String, lines: [OrderLineRequest], pickup: PickupChoice, customer: Customer,
        couponCode: String? = nil, couponID: String? = nil
    ) {
        self.cafeID = cafeID
        self.lines = lines
        self.pickup = pickup
        self.customer = customer
        self.couponCode = couponCode
        self.couponID = couponID
    }
}

/// One requested line: an item, how many, which options (an option may repeat, e.g. two extra shots).
public struct OrderLineRequest: Hashable, Sendable {
    public var itemID: String
    public var quantity: Int
    public var options: [String]
    public var note: String?

    public init(itemID: String, quantity: Int, options: [String], note: String?) {
        self.itemID = itemID
        self.quantity = quantity
        self.options = options
        self.note = note
    }
}

/// When the guest wants to collect: the earliest window with room, or a window by its start.
public enum PickupChoice: Hashable, Sendable {
    case asap
    case window(start: Date)
}

/// Who the order is for: the name called out at the counter, and the employee if known.
public struct Customer: Hashable, Sendable, Codable {
    public var name: String
    public var userID: String?

    public init(name: String, userID: String?) {
        self.name = name
        self.userID = userID
    }

    private enum CodingKeys: String, CodingKey {
        case name
        case userID = "userId"
    }
}

extension Customer: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("name", name)
            object.field("userId", userID)
        }
    }
}

/// A placed order with its lines as sold.
public struct Order: Hashable, Sendable {
    public var id: String
    public var cafeID: String
    /// Short number, unique per café per café-local day, for calling out.
    public var number: Int
    public var customer: Customer
    public var pickup: PickupWindow
    public var lines: [OrderLine]
    /// The coupon redeemed on the order, or nil.
    public var discount: OrderDiscount?
    /// The lines' total less the discount: what tax is worked out on.
    public var subtotal: Money
    public var tax: Money
    public var total: Money
    public var createdAt: Date
    public var tickets: [Ticket]
    /// When Canteen expected, as the order was placed, that it would be ready (`KitchenPlan`).
    public var readyAt: Date

    /// `readyAt` nil: an order placed before ready times were estimated, expected at its window's start.
    public init(
        id: String, cafeID: String, number: Int, customer: Customer, pickup: PickupWindow,
        lines: [OrderLine], discount: OrderDiscount? = nil, subtotal: Money, tax: Money, total: Money,
        createdAt: Date, tickets: [Ticket], readyAt: Date? = nil
    ) {
        self.id = id
        self.cafeID = cafeID
        self.number = number
        self.customer = customer
        self.pickup = pickup
        self.lines = lines
        self.discount = discount
        self.subtotal = subtotal
        self.tax = tax
        self.total = total
        self.createdAt = createdAt
        self.tickets = tickets
        self.readyAt = readyAt ?? pickup.start
    }

    /// The order's status, derived from its tickets.
    public var status: OrderStatus { OrderStatus(tickets: tickets.map(\.status)) }
}

/// One line as sold: the unit price is frozen at the moment of sale.
public struct OrderLine: Hashable, Sendable, Codable {
    public var itemID: String
    public var names: LocalizedText
    public var station: String
    public var quantity: Int
    public var options: [SoldOption]
    public var note: String?
    /// Item price plus option deltas, minor units.
    public var unitPrice: Int64
    /// `unitPrice × quantity`, minor units.
    public var lineTotal: Int64

    public init(
        itemID: String, names: LocalizedText, station: String, quantity: Int, options: [SoldOption],
        note: String?, unitPrice: Int64, lineTotal: Int64
    ) {
        self.itemID = itemID
        self.names = names
        self.station = station
        self.quantity = quantity
        self.options = options
        self.note = note
        self.unitPrice = unitPrice
        self.lineTotal = lineTotal
    }
}

/// An option as sold on a line.
public struct SoldOption: Hashable, Sendable, Codable {
    public var groupID: String
    public var optionID: String
    public var names: LocalizedText
    public var priceDelta: Int64

    public init(groupID: String, optionID: String, names: LocalizedText, priceDelta: Int64) {
        self.groupID = groupID
        self.optionID = optionID
        self.names = names
        self.priceDelta = priceDelta
    }
}

/// What the kiosk shows for an order.
public enum OrderStatus: String, Hashable, Sendable, Codable {
    case placed, preparing, ready
    case pickedUp = "picked_up"
    case cancelled

    /// All tickets cancelled → cancelled; all live ones picked up → picked up; all live ones
    /// ready or collected → ready; any work started → preparing; otherwise (every live ticket
    /// new or held) placed.
    public init(tickets: [TicketStatus]) {
        let live = tickets.filter { $0 != .cancelled }
        if live.isEmpty {
            self = .cancelled
        } else if live.allSatisfy({ $0 == .pickedUp }) {
            self = .pickedUp
        } else if live.allSatisfy({ $0 == .ready || $0 == .pickedUp }) {
            self = .ready
        } else if live.contains(where: { $0 != .new && $0 != .held }) {
            self = .preparing
        } else {
            self = .placed
        }
    }
}

extension Order {
    /// The order as it was when placed: every ticket new or held, as first written. An
    /// idempotent replay shows this, whatever the kitchen has done since.
    public var asPlaced: Order {
        var order = self
        order.tickets = tickets.map { ticket in
            var ticket = ticket
            ticket.status = ticket.placedStatus
            ticket.updatedAt = ticket.createdAt
            ticket.firedAt = ticket.fireAt == nil ? ticket.createdAt : nil
            ticket.startedAt = nil
            ticket.finishedAt = nil
            return ticket
        }
        return order
    }
}
