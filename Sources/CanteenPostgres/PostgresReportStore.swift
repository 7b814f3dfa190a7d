import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `ReportRepository`: the SQLite store's sums, in
/// PostgreSQL's words (sums cast back to BIGINT, times as epoch seconds).
public final class PostgresReportStore: ReportRepository {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func salesBuckets(cafeID: String, period: ReportPeriod) async throws -> [SalesBucket] {
        let sql = ReportSQL.salesBuckets(parameters: ("$1", "$2", "$3"), bucket: ReportSQL.postgresBucket)
        let query = PostgresQuery(unsafeSQL: sql, binds: Self.binds(cafeID, period))
        return try await database.withConnection { connection in
            try await connection.rows(query, logger: self.database.logger).map { row in
                let (date, bucket, currency, cancelled, orders, items, total) = try StoredColumns.decode(
                    row, table: "customerOrder", (String, Int64, String, Bool, Int, Int, Int64).self)
                return try ReportSQL.salesBucket(
                    date: date, bucket: bucket, currency: currency, cancelled: cancelled, orders: orders, items: items,
                    total: total)
            }
        }
    }

    /// The café and the period's first and last date, as `$1`, `$2`, `$3`.
    static func binds(_ cafeID: String, _ period: ReportPeriod) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(cafeID)
        binds.append(period.from.description)
        binds.append(period.to.description)
        return binds
    }

    public func itemSales(cafeID: String, period: ReportPeriod) async throws -> [ItemSales] {
        let query = PostgresQuery(
            unsafeSQL: ReportSQL.itemSales(parameters: ("$1", "$2", "$3")), binds: Self.binds(cafeID, period))
        return try await database.withConnection { connection in
            try await connection.rows(query, logger: self.database.logger).map { row in
                let (itemID, names, currency, orders, items, amount, cancelledOrders, cancelledItems, cancelledAmount) =
                    try StoredColumns.decode(
                        row, table: "orderLine",
                        (String, String?, String, Int, Int, Int64, Int, Int, Int64).self)
                return ItemSales(
                    itemID: itemID, names: try ReportSQL.names(names, itemID: itemID), currency: currency,
                    sold: SalesFigures(orders: orders, items: items, amount: amount),
                    cancelled: SalesFigures(
                        orders: cancelledOrders, items: cancelledItems,
                        amount: cancelledAmount))
            }
        }
    }

    public func kitchenFigures(cafeID: String, period: ReportPeriod) async throws -> (
        tickets: [ReportedTicket],
        orders: OrderReadiness
    ) {
        let (from, to) = (period.from.description, period.to.description)
        return try await database.withConnection { connection in
            let logger = self.database.logger
            let tickets = try await connection.rows(
                """
                SELECT t.station, o.cancelledAt IS NOT NULL,
                    CAST(round(extract(epoch FROM t.finishedAt - o.createdAt)) AS BIGINT),
                    t.finishedAt <= o.pickupStart
                FROM customerOrder o JOIN ticket t ON t.orderId = o.id
                WHERE o.cafeId = \(cafeID) AND o.localDate BETWEEN \(from) AND \(to)
                """, logger: logger
            ).map { row in
                let (station, cancelled, seconds, byStart) = try StoredColumns.decode(
                    row, table: "ticket", (String, Bool, Int64?, Bool?).self)
                return ReportedTicket(
                    station: station, cancelled: cancelled, secondsToReady: seconds,
                    readyByWindowStart: byStart)
            }
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT COUNT(*), COUNT(*) FILTER (WHERE o.cancelledAt IS NOT NULL),
                        COUNT(*) FILTER (WHERE ready.at IS NOT NULL AND o.cancelledAt IS NULL),
                        COUNT(*) FILTER (WHERE ready.at <= o.pickupStart AND o.cancelledAt IS NULL)
                    FROM customerOrder o
                    LEFT JOIN LATERAL (
                        -- Once per order (a subquery named in two FILTERs was run twice per order).
                        SELECT MIN(e.createdAt) AS at FROM orderEvent e WHERE e.orderId = o.id AND e.type = 'order.ready'
                    ) AS ready ON true
                    WHERE o.cafeId = \(cafeID) AND o.localDate BETWEEN \(from) AND \(to)
                    """, logger: logger)
            else {
                return (tickets, OrderReadiness(orders: 0, cancelled: 0, ready: 0, readyByWindowStart: 0))
            }
            let (orders, cancelled, ready, byStart) = try StoredColumns.decode(
                row, table: "customerOrder",
                (Int, Int, Int, Int).self)
            return (
                tickets,
                OrderReadiness(
                    orders: orders - cancelled, cancelled: cancelled, ready: ready,
                    readyByWindowStart: byStart)
            )
        }
    }

    public func windowFigures(cafeID: String, start: Date, end: Date) async throws -> [Date: WindowFigures] {
        let (first, last) = (Int64(start.timeIntervalSince1970), Int64(end.timeIntervalSince1970))
        return try await database.withConnection { connection in
            let logger = self.database.logger
            var figures: [Date: WindowFigures] = [:]
            for row in try await connection.rows(
                """
                SELECT CAST(extract(epoch FROM pickupStart) AS BIGINT), COUNT(*) FILTER (WHERE cancelledAt IS NULL),
                    COUNT(*) FILTER (WHERE cancelledAt IS NOT NULL)
                FROM customerOrder WHERE cafeId = \(cafeID) AND pickupStart >= \(start) AND pickupStart < \(end)
                GROUP BY pickupStart
                """, logger: logger)
            {
                let (at, orders, cancelled) = try StoredColumns.decode(
                    row, table: "customerOrder", (Int64, Int, Int).self)
                let key = Date(timeIntervalSince1970: TimeInterval(at))
                figures[key, default: WindowFigures()].orders = orders
                figures[key, default: WindowFigures()].cancelled = cancelled
            }
            for row in try await connection.rows(
                """
                SELECT start, used FROM pickupSlot WHERE cafeId = \(cafeID) AND start >= \(first) AND start < \(last)
                """, logger: logger)
            {
                let (at, used) = try StoredColumns.decode(row, table: "pickupSlot", (Int64, Int).self)
                figures[Date(timeIntervalSince1970: TimeInterval(at)), default: WindowFigures()].used = used
            }
            for row in try await connection.rows(
                """
                SELECT start, refused FROM pickupRefusal WHERE cafeId = \(cafeID) AND start >= \(first) AND start < \(last)
                """, logger: logger)
            {
                let (at, refused) = try StoredColumns.decode(row, table: "pickupRefusal", (Int64, Int).self)
                figures[Date(timeIntervalSince1970: TimeInterval(at)), default: WindowFigures()].refused = refused
            }
            return figures
        }
    }

    public func recordRefusal(cafeID: String, windowStart: Date) async throws {
        try await database.withConnection { connection in
            try await connection.run(
                """
                INSERT INTO pickupRefusal (cafeId, start, refused) VALUES (\(cafeID), \(Int64(windowStart.timeIntervalSince1970)), 1)
                ON CONFLICT (cafeId, start) DO UPDATE SET refused = pickupRefusal.refused + 1
                """, logger: self.database.logger)
        }
    }
}
