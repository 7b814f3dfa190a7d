import CanteenCore
import CanteenJSON
import Foundation

/// SQL both report stores run (the same text on SQLite and PostgreSQL, but for the parameters'
/// placeholders; sums cast to BIGINT, which PostgreSQL's SUM would make NUMERIC), and how they read what it returns.
public enum ReportSQL {
    /// Sales by item of a café's dates: a line's quantity and total count as sold unless its order
    /// was cancelled. `parameters` are the placeholders of the café and the first and last date
    /// (`?` on SQLite, `$1`… on PostgreSQL).
    public static func itemSales(parameters: (String, String, String)) -> String {
        """
        SELECT l.itemId, MAX(l.names) AS names, o.currency,
            COUNT(DISTINCT CASE WHEN o.cancelledAt IS NULL THEN o.id END) AS orders,
            CAST(COALESCE(SUM(CASE WHEN o.cancelledAt IS NULL THEN l.quantity ELSE 0 END), 0) AS BIGINT)
                AS items,
            CAST(COALESCE(SUM(CASE WHEN o.cancelledAt IS NULL THEN l.lineTotal ELSE 0 END), 0) AS BIGINT)
                AS amount,
            COUNT(DISTINCT CASE WHEN o.cancelledAt IS NOT NULL THEN o.id END) AS cancelledOrders,
            CAST(COALESCE(SUM(CASE WHEN o.cancelledAt IS NOT NULL THEN l.quantity ELSE 0 END), 0) AS BIGINT)
                AS cancelledItems,
            CAST(COALESCE(SUM(CASE WHEN o.cancelledAt IS NOT NULL THEN l.lineTotal ELSE 0 END), 0) AS BIGINT)
                AS cancelledAmount
        FROM customerOrder o JOIN orderLine l ON l.orderId = o.id
        WHERE o.cafeId = \(parameters.0) AND o.localDate BETWEEN \(parameters.1) AND \(parameters.2)
        GROUP BY l.itemId, o.currency
        """
    }

    /// Orders of a café's dates per quarter hour of placing, currency and whether cancelled, with
    /// their items and totals. `bucket` is the engine's expression of `o.createdAt` in whole
    /// `SalesBucket.seconds` since 1970 (`bucketExpression` for each engine).
    public static func salesBuckets(parameters: (String, String, String), bucket: String) -> String {
        """
        SELECT localDate, bucket, currency, cancelled, COUNT(*) AS orders, CAST(SUM(items) AS BIGINT) AS items,
            CAST(SUM(total) AS BIGINT) AS total
        FROM (
            SELECT o.localDate, \(bucket) AS bucket, o.currency, o.cancelledAt IS NOT NULL AS cancelled, o.total,
                (SELECT COALESCE(SUM(l.quantity), 0) FROM orderLine l WHERE l.orderId = o.id) AS items
            FROM customerOrder o
            WHERE o.cafeId = \(parameters.0) AND o.localDate BETWEEN \(parameters.1) AND \(parameters.2)
        ) AS placed
        GROUP BY localDate, bucket, currency, cancelled
        """
    }

    /// SQLite's quarter hour of `o.createdAt` (stored as UTC text).
    public static let sqliteBucket = "CAST(strftime('%s', o.createdAt) AS INTEGER) / \(SalesBucket.seconds)"
    /// PostgreSQL's quarter hour of `o.createdAt` (a TIMESTAMPTZ).
    public static let postgresBucket = "CAST(floor(extract(epoch FROM o.createdAt) / \(SalesBucket.seconds)) AS BIGINT)"

    /// One row of `salesBuckets`: its local date checked, its bucket made an instant.
    public static func salesBucket(
        date: String, bucket: Int64, currency: String, cancelled: Bool, orders: Int, items: Int, total: Int64
    ) throws -> SalesBucket {
        guard let localDate = LocalDate(parsing: date) else {
            throw StoredRow.invalid(table: "customerOrder", id: date, "'\(date)' is not a local date")
        }
        return SalesBucket(
            localDate: localDate, start: Date(timeIntervalSince1970: TimeInterval(bucket * SalesBucket.seconds)),
            currency: currency, cancelled: cancelled, orders: orders, items: items, total: total)
    }

    /// The names an order line keeps (a JSON object of language → text).
    public static func names(_ text: String?, itemID: String) throws -> LocalizedText {
        guard let text, case .object(let object)? = try? JSONValue.parse(Data(text.utf8)) else {
            throw StoredRow.invalid(table: "orderLine", id: itemID, "its names are not a JSON object")
        }
        return LocalizedText(object.compactMapValues(\.stringValue))
    }
}
