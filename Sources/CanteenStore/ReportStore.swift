import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// The SQLite implementation of `ReportRepository`: sums in SQL over the orders of a café's
/// dates (the `customerOrder (cafeId, localDate, number)` index), their lines, tickets and
/// `order.ready` events; refused orders counted in `pickupRefusal`.
public final class ReportStore: ReportRepository {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func salesBuckets(cafeID: String, period: ReportPeriod) async throws -> [SalesBucket] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db, sql: ReportSQL.salesBuckets(parameters: ("?", "?", "?"), bucket: ReportSQL.sqliteBucket),
                arguments: [cafeID, period.from.description, period.to.description]
            ).map { row in
                try ReportSQL.salesBucket(
                    date: row["localDate"], bucket: row["bucket"], currency: row["currency"],
                    cancelled: row["cancelled"],
                    orders: row["orders"], items: row["items"], total: row["total"])
            }
        }
    }

    public func itemSales(cafeID: String, period: ReportPeriod) async throws -> [ItemSales] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db, sql: ReportSQL.itemSales(parameters: ("?", "?", "?")),
                arguments: [
                    cafeID, period.from.description,
                    period.to.description,
                ]
            ).map { row in
                let itemID: String = row["itemId"]
                return ItemSales(
                    itemID: itemID, names: try ReportSQL.names(row["names"], itemID: itemID), currency: row["currency"],
                    sold: SalesFigures(orders: row["orders"], items: row["items"], amount: row["amount"]),
                    cancelled: SalesFigures(
                        orders: row["cancelledOrders"], items: row["cancelledItems"],
                        amount: row["cancelledAmount"]))
            }
        }
    }

    public func kitchenFigures(cafeID: String, period: ReportPeriod) async throws -> (
        tickets: [ReportedTicket],
        orders: OrderReadiness
    ) {
        try await database.writer.read { db in
            let arguments: StatementArguments = [cafeID, period.from.description, period.to.description]
            let tickets = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.station, o.cancelledAt IS NOT NULL AS cancelled,
                        CAST(round((julianday(t.finishedAt) - julianday(o.createdAt)) * 86400) AS INTEGER) AS seconds,
                        t.finishedAt <= o.pickupStart AS byStart
                    FROM customerOrder o JOIN ticket t ON t.orderId = o.id
                    WHERE o.cafeId = ? AND o.localDate BETWEEN ? AND ?
                    """, arguments: arguments
            ).map { row in
                ReportedTicket(
                    station: row["station"], cancelled: row["cancelled"], secondsToReady: row["seconds"],
                    readyByWindowStart: row["byStart"])
            }
            let orders = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS orders, COALESCE(SUM(cancelled), 0) AS cancelled,
                        COALESCE(SUM(CASE WHEN readyAt IS NOT NULL AND cancelled = 0 THEN 1 ELSE 0 END), 0) AS ready,
                        COALESCE(SUM(CASE WHEN readyAt <= pickupStart AND cancelled = 0 THEN 1 ELSE 0 END), 0) AS byStart
                    FROM (
                        SELECT o.cancelledAt IS NOT NULL AS cancelled, o.pickupStart,
                            (SELECT MIN(e.createdAt) FROM orderEvent e WHERE e.orderId = o.id AND e.type = 'order.ready')
                                AS readyAt
                        FROM customerOrder o
                        WHERE o.cafeId = ? AND o.localDate BETWEEN ? AND ?
                    )
                    """, arguments: arguments)
            let readiness = OrderReadiness(
                orders: (orders?["orders"] ?? 0) - (orders?["cancelled"] ?? 0),
                cancelled: orders?["cancelled"] ?? 0, ready: orders?["ready"] ?? 0,
                readyByWindowStart: orders?["byStart"] ?? 0)
            return (tickets, readiness)
        }
    }

    public func windowFigures(cafeID: String, start: Date, end: Date) async throws -> [Date: WindowFigures] {
        try await database.writer.read { db in
            var figures: [Date: WindowFigures] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT pickupStart, SUM(CASE WHEN cancelledAt IS NULL THEN 1 ELSE 0 END) AS orders,
                        SUM(CASE WHEN cancelledAt IS NULL THEN 0 ELSE 1 END) AS cancelled
                    FROM customerOrder WHERE cafeId = ? AND pickupStart >= ? AND pickupStart < ?
                    GROUP BY pickupStart
                    """, arguments: [cafeID, StoredTimestamp.text(start), StoredTimestamp.text(end)])
            {
                let at: Date = row["pickupStart"]
                figures[at, default: WindowFigures()].orders = row["orders"]
                figures[at, default: WindowFigures()].cancelled = row["cancelled"]
            }
            let range: StatementArguments = [
                cafeID, Int64(start.timeIntervalSince1970), Int64(end.timeIntervalSince1970),
            ]
            for row in try Row.fetchAll(
                db, sql: "SELECT start, used FROM pickupSlot WHERE cafeId = ? AND start >= ? AND start < ?",
                arguments: range)
            {
                figures[Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64)), default: WindowFigures()]
                    .used =
                    row["used"]
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT start, refused FROM pickupRefusal WHERE cafeId = ? AND start >= ? AND start < ?
                    """, arguments: range)
            {
                figures[Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64)), default: WindowFigures()]
                    .refused =
                    row["refused"]
            }
            return figures
        }
    }

    public func recordRefusal(cafeID: String, windowStart: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO pickupRefusal (cafeId, start, refused) VALUES (?, ?, 1)
                    ON CONFLICT (cafeId, start) DO UPDATE SET refused = refused + 1
                    """, arguments: [cafeID, Int64(windowStart.timeIntervalSince1970)])
        }
    }
}
