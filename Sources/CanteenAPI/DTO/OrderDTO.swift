import CanteenCore
import CanteenJSON
import Foundation

/// A pickup window on the wire: RFC 3339 instants with the café's UTC offset.
struct PickupWindowDTO: Encodable {
    let start: String
    let end: String
    let label: String

    init(_ window: PickupWindow, cafe: Cafe, presentation: Presentation) {
        let zone = cafe.timeZoneValue
        start = RFC3339.string(window.start, timeZone: zone)
        end = RFC3339.string(window.end, timeZone: zone)
        label = presentation.windowLabel(window, cafe: cafe)
    }
}

/// `POST /v1/orders` and `GET /v1/orders/{id}`.
struct OrderDTO: Encodable {
    /// An item sold, or the discount a coupon gave (`kind` `discount`: its amount negative, no item or station).
    struct Line: Encodable {
        let kind: String
        let itemId: String?
        let couponId: String?
        let name: String
        let station: String?
        let quantity: Int
        let options: [Option]
        let note: String?
        let unitPrice: MoneyDTO
        let lineTotal: MoneyDTO
    }

    struct Option: Encodable {
        let groupId: String
        let id: String
        let name: String
        let priceDelta: MoneyDTO
    }

    struct TicketRef: Encodable {
        let id: String
        let station: String
        let status: String
        /// A held ticket's fire time.
        let fireAt: Date?
    }

    let id: String
    let cafeId: String
    let number: Int
    let status: String
    let statusLabel: String
    let customer: Customer
    let lines: [Line]
    let subtotal: MoneyDTO
    let tax: MoneyDTO
    let total: MoneyDTO
    let taxIncluded: Bool
    let pickup: PickupWindowDTO
    let tickets: [TicketRef]
    let createdAt: Date
    /// When Canteen expected, as the order was placed, that it would be ready.
    let readyAt: Date

    init(_ order: Order, cafe: Cafe, presentation: Presentation) {
        let currency = order.total.currency
        id = order.id
        cafeId = order.cafeID
        number = order.number
        status = order.status.rawValue
        statusLabel = presentation.label("state.\(order.status.rawValue)")
        customer = order.customer
        lines =
            order.lines.map { line in
                Line(
                    kind: "item", itemId: line.itemID, couponId: nil, name: presentation.text(line.names),
                    station: line.station, quantity: line.quantity,
                    options: line.options.map {
                        Option(
                            groupId: $0.groupID, id: $0.optionID, name: presentation.text($0.names),
                            priceDelta: presentation.money($0.priceDelta, currency))
                    },
                    note: line.note, unitPrice: presentation.money(line.unitPrice, currency),
                    lineTotal: presentation.money(line.lineTotal, currency))
            }
            + (order.discount.map { discount in
                let amount = presentation.money(-discount.amount, currency)
                return [
                    Line(
                        kind: "discount", itemId: nil, couponId: discount.couponID, name: discount.label, station: nil,
                        quantity: 1, options: [], note: nil, unitPrice: amount, lineTotal: amount)
                ]
            } ?? [])
        subtotal = presentation.money(order.subtotal.minorUnits, currency)
        tax = presentation.money(order.tax.minorUnits, currency)
        total = presentation.money(order.total.minorUnits, currency)
        taxIncluded = cafe.tax.included
        pickup = PickupWindowDTO(order.pickup, cafe: cafe, presentation: presentation)
        tickets = order.tickets.map {
            TicketRef(
                id: $0.id, station: $0.station, status: $0.status.rawValue,
                fireAt: $0.status == .held ? $0.fireAt : nil)
        }
        createdAt = order.createdAt
        readyAt = order.readyAt
    }
}

/// A kitchen ticket on the wire.
struct TicketDTO: Encodable {
    struct Line: Encodable {
        let itemId: String
        let name: String
        let quantity: Int
        let options: [String]
        let note: String?
    }

    let id: String
    let orderId: String
    let orderNumber: Int
    let cafeId: String
    let station: String
    let status: String
    let statusLabel: String
    let customerName: String
    let pickup: PickupWindowDTO
    let lines: [Line]
    let sequence: Int64
    let createdAt: Date
    let updatedAt: Date
    /// How long the ticket takes, when known; the display times its age against it.
    let prepSeconds: Int?
    /// While held: when it fires.
    let fireAt: Date?
    /// When it reached its station (its age counts from here).
    let firedAt: Date?

    init(_ view: TicketView, cafe: Cafe, presentation: Presentation) {
        id = view.ticket.id
        orderId = view.ticket.orderID
        orderNumber = view.orderNumber
        cafeId = view.ticket.cafeID
        station = view.ticket.station
        status = view.ticket.status.rawValue
        statusLabel = presentation.label("state.\(view.ticket.status.rawValue)")
        customerName = view.customer.name
        pickup = PickupWindowDTO(view.pickup, cafe: cafe, presentation: presentation)
        lines = view.lines.map { line in
            Line(
                itemId: line.itemID, name: presentation.text(line.names), quantity: line.quantity,
                options: line.options.map { presentation.text($0.names) }, note: line.note)
        }
        sequence = view.ticket.sequence
        createdAt = view.ticket.createdAt
        updatedAt = view.ticket.updatedAt
        prepSeconds = view.ticket.prepSeconds
        fireAt = view.ticket.status == .held ? view.ticket.fireAt : nil
        firedAt = view.ticket.firedAt
    }
}

/// `GET /v1/cafes/{id}/tickets`.
struct TicketFeedDTO: Encodable {
    let tickets: [TicketDTO]
    let cursor: String
}

/// `GET /v1/cafes/{id}/pickup-windows`.
struct PickupWindowsDTO: Encodable {
    struct Window: Encodable {
        let start: String
        let end: String
        let label: String
        let capacity: Int
        let remaining: Int
        /// Whether a guest may choose it: false when full or when the kitchen cannot meet it.
        let available: Bool
        /// `pickup_window_full` or `kitchen_busy` when unavailable.
        let unavailableReason: String?
    }

    let cafeId: String
    let date: String
    let timeZone: String
    let capacityUnit: String
    let windows: [Window]
}
