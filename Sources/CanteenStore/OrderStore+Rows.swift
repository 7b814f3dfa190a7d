import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import GRDB

// MARK: - Writing an order's rows

/// Inserts on the order path use cached prepared statements and write their JSON columns
/// directly: this runs inside the single writer for every order, so it stays lean. Reads go
/// through the records, which decode the same column formats.
extension OrderStore {
    static func insert(_ record: OrderRecord, _ db: Database) throws {
        var statement = try BoundStatement(
            db,
            sql: """
                INSERT INTO customerOrder (id, cafeId, number, localDate, customerName, userId, tokenId, pickupStart,
                    pickupEnd, subtotal, tax, total, currency, capacityUnits, createdAt, cancelledAt, couponId,
                    discountLabel, discount, readyAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                """)
        statement.bind(record.id)
        statement.bind(record.cafeId)
        statement.bind(record.number)
        statement.bind(record.localDate)
        statement.bind(record.customerName)
        statement.bind(record.userId)
        statement.bind(record.tokenId)
        statement.bind(StoredTimestamp.text(record.pickupStart))
        statement.bind(StoredTimestamp.text(record.pickupEnd))
        statement.bind(record.subtotal)
        statement.bind(record.tax)
        statement.bind(record.total)
        statement.bind(record.currency)
        statement.bind(record.capacityUnits)
        statement.bind(StoredTimestamp.text(record.createdAt))
        statement.bind(record.couponId)
        statement.bind(record.discountLabel)
        statement.bind(record.discount)
        statement.bind(record.readyAt.map(StoredTimestamp.text))
        try statement.run()
    }

    /// `names`: the line's names as JSON text (`StoredItemNames`, once per item and transaction).
    static func insert(_ line: OrderLine, names: String, orderID: String, position: Int, _ db: Database) throws {
        var statement = try BoundStatement(
            db,
            sql: """
                INSERT INTO orderLine (orderId, position, itemId, names, station, quantity, unitPrice, lineTotal, options, note)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        statement.bind(orderID)
        statement.bind(position)
        statement.bind(line.itemID)
        statement.bind(names)
        statement.bind(line.station)
        statement.bind(line.quantity)
        statement.bind(line.unitPrice)
        statement.bind(line.lineTotal)
        statement.bind(JSONText.options(line.options))
        statement.bind(line.note)
        try statement.run()
    }
}

/// Instants as GRDB stores `Date` (`2026-11-22 04:36:31.123`, UTC, milliseconds), written
/// without a `DateFormatter` on the order path; the records read them back as usual.
enum StoredTimestamp {
    static func text(_ date: Date) -> String {
        let micros = RFC3339.unixMicroseconds(date)
        if let text = RFC3339.utcStoredMilliseconds(unixMicroseconds: micros) { return text }
        // Years outside 0–9999: `…T04:36:31.123456Z` → `… 04:36:31.123` as before, or kept whole.
        var utf8 = Array(RFC3339.utcMicroseconds(unixMicroseconds: micros).utf8)
        guard utf8.count == 27 else { return String(decoding: utf8, as: UTF8.self) }
        utf8[10] = UInt8(ascii: " ")
        return String(decoding: utf8[..<23], as: UTF8.self)
    }
}
