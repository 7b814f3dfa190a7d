import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `DailyStockRepository`, and what the order and cancel
/// transactions do with it.
///
/// Orders of a café are placed under the café row's lock (`PostgresOrderStore`), and so is
/// setting what is left: what an order reads of a limited item is what it takes, on every
/// server. The take itself is a conditional update as well (`remaining >= n`, and
/// `CHECK (remaining >= 0)` beneath it), so a batch can never be oversold.
public final class PostgresDailyStockStore: DailyStockRepository {
    let database: PostgresDatabase
    private let cafes: PostgresCafeStore
    let clock: @Sendable () -> Date

    public init(database: PostgresDatabase, cafes: PostgresCafeStore, clock: @escaping @Sendable () -> Date = Date.init)
    {
        self.database = database
        self.cafes = cafes
        self.clock = clock
    }

    public func remaining(cafeID: String, date: LocalDate) async throws -> [String: Int] {
        try await database.withConnection { connection in
            var remaining: [String: Int] = [:]
            for row in try await connection.rows(
                """
                SELECT itemId, remaining FROM dailyStock WHERE cafeId = \(cafeID) AND localDate = \(date.description)
                """, logger: self.database.logger)
            {
                let (item, left) = try StoredColumns.decode(row, table: "dailyStock", (String, Int).self)
                remaining[item] = left
            }
            return remaining
        }
    }

    public func setRemaining(
        cafeID: String, itemID: String, remaining: Int,
        audit: AuditEntry?
    ) async throws -> ItemStock {
        let now = clock()
        return try await database.transaction { connection in
            let logger = self.database.logger
            // The orders' lock: no order of the café is between reading and taking meanwhile.
            guard
                let row = try await connection.firstRow(
                    "SELECT menuVersion FROM cafe WHERE id = \(cafeID) FOR NO KEY UPDATE", logger: logger)
            else {
                throw CanteenError.notFound(.cafe, cafeID)
            }
            let version = try StoredColumns.decode(row, table: "cafe", Int64.self)
            guard let menu = try await self.cafes.menu(connection, cafeID: cafeID, version: version) else {
                throw CanteenError.notFound(.cafe, cafeID)
            }
            let stock = try DailyStock.setting(remaining, of: itemID, in: menu, now: now)
            let stored = try await Self.remaining(
                connection, cafeID: cafeID, itemID: itemID, date: stock.date,
                logger: logger)
            try await PostgresAuditStore.record(
                audit, before: ItemStock.audited(remaining: stored ?? stock.dailyQuantity),
                after: ItemStock.audited(remaining: remaining), at: now, connection, logger: logger)
            try await connection.run(
                """
                INSERT INTO dailyStock (cafeId, itemId, localDate, remaining)
                VALUES (\(cafeID), \(itemID), \(stock.date.description), \(remaining))
                ON CONFLICT (cafeId, itemId, localDate) DO UPDATE SET remaining = excluded.remaining
                """, logger: logger)
            return stock
        }
    }

    // MARK: - Inside the order and cancel transactions

    /// What is stored as left of an item on `date` (nil: nothing taken or set that day).
    static func remaining(
        _ connection: PostgresConnection, cafeID: String, itemID: String, date: LocalDate,
        logger: Logger
    ) async throws -> Int? {
        try await connection.scalar(
            """
            SELECT remaining FROM dailyStock
            WHERE cafeId = \(cafeID) AND itemId = \(itemID) AND localDate = \(date.description)
            """, table: "dailyStock", as: Int.self, logger: logger)
    }

    /// Takes `want` (already checked to leave `left`) and records it against the order. The
    /// update is conditional: should the row have changed since it was read, nothing is taken
    /// and the batch fails as a whole, to be retried.
    static func take(
        _ connection: PostgresConnection, _ want: StockWant, left: Int, orderID: String, cafeID: String,
        date: LocalDate, logger: Logger
    ) async throws {
        let day = date.description
        guard
            try await connection.firstRow(
                """
                INSERT INTO dailyStock (cafeId, itemId, localDate, remaining)
                VALUES (\(cafeID), \(want.item.id), \(day), \(left))
                ON CONFLICT (cafeId, itemId, localDate)
                    DO UPDATE SET remaining = dailyStock.remaining - \(want.quantity)
                    WHERE dailyStock.remaining >= \(want.quantity)
                RETURNING remaining
                """, logger: logger) != nil
        else {
            throw StoredRow.invalid(
                table: "dailyStock", id: "\(cafeID)/\(want.item.id)/\(day)",
                "it changed while the café was locked")
        }
        try await connection.run(
            """
            INSERT INTO stockTaken (orderId, itemId, localDate, quantity)
            VALUES (\(orderID), \(want.item.id), \(day), \(want.quantity))
            """, logger: logger)
    }

    /// Gives back what a cancelled order took, once.
    static func giveBack(_ connection: PostgresConnection, orderID: String, cafeID: String, logger: Logger) async throws
    {
        try await connection.run(
            """
            UPDATE dailyStock SET remaining = dailyStock.remaining + taken.quantity FROM stockTaken AS taken
            WHERE taken.orderId = \(orderID) AND dailyStock.cafeId = \(cafeID) AND dailyStock.itemId = taken.itemId
                AND dailyStock.localDate = taken.localDate
            """, logger: logger)
        try await connection.run("DELETE FROM stockTaken WHERE orderId = \(orderID)", logger: logger)
    }
}
