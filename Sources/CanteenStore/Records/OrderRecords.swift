import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// A row of `customerOrder`: totals are integer minor units of `currency`.
struct OrderRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "customerOrder"
    var id: String
    var cafeId: String
    var number: Int
    var localDate: String
    var customerName: String
    var userId: String?
    var tokenId: String?
    var pickupStart: Date
    var pickupEnd: Date
    var subtotal: Int64
    var tax: Int64
    var total: Int64
    var currency: String
    var capacityUnits: Int
    var createdAt: Date
    var cancelledAt: Date?
    var couponId: String?
    var discountLabel: String?
    var discount: Int64
    /// The ready time expected when the order was placed (nil for orders placed before v13).
    var readyAt: Date?

    var customer: Customer { Customer(name: customerName, userID: userId) }

    /// The coupon redeemed on the order; a coupon without its label is an error naming the row.
    func orderDiscount() throws -> OrderDiscount? {
        guard let couponId else { return nil }
        guard let discountLabel, discount >= 0 else {
            throw StoredRow.invalid(
                table: Self.databaseTableName, id: id, "coupon \(couponId) without a label or amount")
        }
        return OrderDiscount(couponID: couponId, label: discountLabel, amount: discount)
    }

    /// The order's currency; a code that is not ISO 4217 is an error naming the row.
    func currencyValue() throws -> Currency {
        guard let currency = try? Currency(code: currency) else {
            throw StoredRow.invalid(
                table: Self.databaseTableName, id: id, "'\(currency)' is not an ISO 4217 currency code")
        }
        return currency
    }
    var pickup: PickupWindow { PickupWindow(start: pickupStart, end: pickupEnd) }
}

/// A row of `orderLine`: the unit price the line was sold at, in minor units.
struct OrderLineRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "orderLine"
    var orderId: String
    var position: Int
    var itemId: String
    var names: LocalizedText
    var station: String
    var quantity: Int
    var unitPrice: Int64
    var lineTotal: Int64
    var options: [SoldOption]
    var note: String?

    var line: OrderLine {
        OrderLine(
            itemID: itemId, names: names, station: station, quantity: quantity, options: options,
            note: note, unitPrice: unitPrice, lineTotal: lineTotal)
    }
}

/// A row of `ticket`: `sequence` is the feed position of its latest change.
struct TicketRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ticket"
    var id: String
    var orderId: String
    var cafeId: String
    var station: String
    var status: String
    var sequence: Int64
    var createdAt: Date
    var updatedAt: Date
    var prepSeconds: Int?
    var fireAt: Date?
    var firedAt: Date?
    var startedAt: Date?
    var finishedAt: Date?

    init(_ ticket: Ticket) {
        id = ticket.id
        orderId = ticket.orderID
        cafeId = ticket.cafeID
        station = ticket.station
        status = ticket.status.rawValue
        sequence = ticket.sequence
        createdAt = ticket.createdAt
        updatedAt = ticket.updatedAt
        prepSeconds = ticket.prepSeconds
        fireAt = ticket.fireAt
        firedAt = ticket.firedAt
        startedAt = ticket.startedAt
        finishedAt = ticket.finishedAt
    }

    /// The ticket; a status this version does not know is an error naming the row.
    func ticket() throws -> Ticket {
        guard let status = TicketStatus(rawValue: status) else {
            throw StoredRow.invalid(table: Self.databaseTableName, id: id, "'\(status)' is not a ticket status")
        }
        return Ticket(
            id: id, orderID: orderId, cafeID: cafeId, station: station, status: status, sequence: sequence,
            createdAt: createdAt, updatedAt: updatedAt, prepSeconds: prepSeconds, fireAt: fireAt,
            firedAt: firedAt, startedAt: startedAt, finishedAt: finishedAt)
    }
}

/// A row of `idempotencyRecord`: the order placed under a token's key, and the language of
/// the first answer (the answer itself is rendered again from the order).
struct IdempotencyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "idempotencyRecord"
    var tokenId: String
    var key: String
    var requestHash: Data
    var orderId: String
    var answerLanguage: String?
    var createdAt: Date
}
