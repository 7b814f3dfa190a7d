import CanteenCore
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

    var customer: Customer { Customer(name: customerName, userID: userId) }
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
        OrderLine(itemID: itemId, names: names, station: station, quantity: quantity, options: options,
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

    var ticket: Ticket {
        Ticket(id: id, orderID: orderId, cafeID: cafeId, station: station,
               status: TicketStatus(rawValue: status) ?? .new, sequence: sequence,
               createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// A row of `idempotencyKey`: the response first given for a token's key.
struct IdempotencyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "idempotencyKey"
    var tokenId: String
    var key: String
    var requestHash: Data
    var status: Int
    var body: Data
    var orderId: String?
    var createdAt: Date
    var contentLanguage: String?
}
