import CanteenCore
import Foundation
import PostgresNIO

extension PostgresOrderStore {
    /// One statement writing an order: takes its window's capacity (only while the window has
    /// room), the café's next number of the day, the order and its lines; returns the number, or
    /// no row when the window is full. Prepared: every order runs it.
    struct WriteOrder: FixedStatement {
        static let sql = WriteOrder(
            cafeID: "", slotKey: 0, units: 0, capacity: 0, localDate: "", orderID: "", customerName: "",
            userID: nil, tokenID: nil, window: PickupWindow(start: Date(), end: Date()), subtotal: 0, tax: 0,
            total: 0, currency: "", now: Date(), couponID: nil, discountLabel: nil, discount: 0, readyAt: Date(),
            linesJSON: "[]"
        ).query.sql

        let cafeID: String
        let slotKey: Int64
        let units: Int
        let capacity: Int
        let localDate: String
        let orderID: String
        let customerName: String
        let userID: String?
        let tokenID: String?
        let window: PickupWindow
        let subtotal: Int64
        let tax: Int64
        let total: Int64
        let currency: String
        let now: Date
        let couponID: String?
        let discountLabel: String?
        let discount: Int64
        let readyAt: Date
        /// The lines as `json_to_recordset` reads them.
        let linesJSON: String

        var query: PostgresQuery {
            """
            WITH slot AS (
                INSERT INTO pickupSlot (cafeId, start, used) VALUES (\(cafeID), \(slotKey), \(units))
                ON CONFLICT (cafeId, start) DO UPDATE SET used = pickupSlot.used + excluded.used
                    WHERE pickupSlot.used + excluded.used <= \(capacity)
                RETURNING used
            ), number AS (
                INSERT INTO orderNumber (cafeId, localDate, last)
                SELECT \(cafeID), \(localDate), 1 WHERE EXISTS (SELECT 1 FROM slot)
                ON CONFLICT (cafeId, localDate) DO UPDATE SET last = orderNumber.last + 1
                RETURNING last
            ), placed AS (
                INSERT INTO customerOrder (id, cafeId, number, localDate, customerName, userId, tokenId, pickupStart,
                    pickupEnd, subtotal, tax, total, currency, capacityUnits, createdAt, cancelledAt, couponId,
                    discountLabel, discount, readyAt)
                SELECT \(orderID), \(cafeID), number.last, \(localDate), \(customerName),
                    \(userID), \(tokenID), \(window.start), \(window.end),
                    \(subtotal), \(tax), \(total),
                    \(currency), \(units), \(now), NULL, \(couponID),
                    \(discountLabel), \(discount), \(readyAt)
                FROM number
                RETURNING number
            ), lines AS (
                INSERT INTO orderLine (orderId, position, itemId, names, station, quantity, unitPrice, lineTotal, options, note)
                SELECT \(orderID), line.position, line.itemid, line.names, line.station, line.quantity, line.unitprice,
                    line.linetotal, line.options, line.note
                FROM json_to_recordset(\(linesJSON)::json) AS line(position bigint, itemid text, names text, station text,
                    quantity bigint, unitprice bigint, linetotal bigint, options text, note text)
                WHERE EXISTS (SELECT 1 FROM placed)
            )
            SELECT number FROM placed
            """
        }
    }
}
