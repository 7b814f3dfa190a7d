import CanteenCore
import Foundation
import PostgresNIO

extension PostgresOrderStore {
    /// One statement writing a batch's orders that have no coupon and no limited item
    /// (`Prepared.isDeferred`): takes each window's capacity for all its orders at once (only
    /// while the window has room for all of them), the cafés' next numbers of the day (in the
    /// batch's order), the orders and their lines; returns the id and number of each order
    /// written. An order whose window was full is not written (possible only across midnight,
    /// as for `WriteOrder`). Prepared: every batch runs it.
    struct WriteOrders: FixedStatement {
        static let sql = WriteOrders([]).query.sql

        let orders: [Prepared]
        let linesJSON: String

        init(_ orders: [Prepared]) {
            self.orders = orders
            linesJSON = StoredLine.json(orders.flatMap(\.lines))
        }

        // Arrays carry no NULL element here: an optional column is a value and a flag.
        var query: PostgresQuery {
            let orders = orders.map(\.order)
            let units = self.orders.map { Int64($0.units) }
            let capacities = self.orders.map { Int64($0.capacity) }
            let tokenIDs = self.orders.map { $0.placement.key?.tokenID }
            return """
                WITH input AS (
                    SELECT * FROM unnest(\(orders.map(\.id))::text[], \(orders.map(\.cafeID))::text[],
                        \(self.orders.map(\.slotKey))::bigint[], \(units)::bigint[], \(capacities)::bigint[],
                        \(self.orders.map(\.localDate))::text[], \(orders.map(\.customer.name))::text[],
                        \(orders.map { $0.customer.userID ?? "" })::text[], \(orders.map { $0.customer.userID != nil })::boolean[],
                        \(tokenIDs.map { $0 ?? "" })::text[], \(tokenIDs.map { $0 != nil })::boolean[],
                        \(orders.map(\.pickup.start))::timestamptz[], \(orders.map(\.pickup.end))::timestamptz[],
                        \(orders.map(\.subtotal.minorUnits))::bigint[], \(orders.map(\.tax.minorUnits))::bigint[],
                        \(orders.map(\.total.minorUnits))::bigint[], \(orders.map(\.total.currency.code))::text[],
                        \(orders.map(\.createdAt))::timestamptz[], \(self.orders.map(\.plan.readyAt))::timestamptz[])
                        WITH ORDINALITY AS o(id, cafeId, slotKey, units, capacity, localDate, customerName, userId, hasUserId,
                            tokenId, hasTokenId, pickupStart, pickupEnd, subtotal, tax, total, currency, createdAt, readyAt,
                            position)
                ), wanted AS (
                    SELECT cafeId, slotKey, SUM(units) AS units, MIN(capacity) AS capacity FROM input GROUP BY cafeId, slotKey
                ), slot AS (
                    INSERT INTO pickupSlot (cafeId, start, used)
                    SELECT cafeId, slotKey, units FROM wanted ORDER BY cafeId, slotKey
                    ON CONFLICT (cafeId, start) DO UPDATE SET used = pickupSlot.used + excluded.used
                        WHERE pickupSlot.used + excluded.used
                            <= (SELECT w.capacity FROM wanted w WHERE w.cafeId = excluded.cafeId AND w.slotKey = excluded.start)
                    RETURNING cafeId, start
                ), taken AS (
                    SELECT input.*,
                        row_number() OVER (PARTITION BY input.cafeId, input.localDate ORDER BY input.position) AS rank,
                        count(*) OVER (PARTITION BY input.cafeId, input.localDate) AS count
                    FROM input JOIN slot ON slot.cafeId = input.cafeId AND slot.start = input.slotKey
                ), number AS (
                    INSERT INTO orderNumber (cafeId, localDate, last)
                    SELECT cafeId, localDate, MAX(count) FROM taken GROUP BY cafeId, localDate ORDER BY cafeId, localDate
                    ON CONFLICT (cafeId, localDate) DO UPDATE SET last = orderNumber.last + excluded.last
                    RETURNING cafeId, localDate, last
                ), placed AS (
                    INSERT INTO customerOrder (id, cafeId, number, localDate, customerName, userId, tokenId, pickupStart,
                        pickupEnd, subtotal, tax, total, currency, capacityUnits, createdAt, cancelledAt, couponId,
                        discountLabel, discount, readyAt)
                    SELECT t.id, t.cafeId, number.last - t.count + t.rank, t.localDate, t.customerName,
                        CASE WHEN t.hasUserId THEN t.userId END, CASE WHEN t.hasTokenId THEN t.tokenId END, t.pickupStart,
                        t.pickupEnd, t.subtotal, t.tax, t.total, t.currency, t.units, t.createdAt, NULL, NULL, NULL, 0,
                        t.readyAt
                    FROM taken t JOIN number ON number.cafeId = t.cafeId AND number.localDate = t.localDate
                    RETURNING id, number
                ), lines AS (
                    INSERT INTO orderLine (orderId, position, itemId, names, station, quantity, unitPrice, lineTotal, options, note)
                    SELECT line.orderid, line.position, line.itemid, line.names, line.station, line.quantity, line.unitprice,
                        line.linetotal, line.options, line.note
                    FROM json_to_recordset(\(linesJSON)::json) AS line(orderid text, position bigint, itemid text, names text,
                        station text, quantity bigint, unitprice bigint, linetotal bigint, options text, note text)
                    WHERE line.orderid IN (SELECT id FROM placed)
                )
                SELECT id, number FROM placed
                """
        }
    }
}
