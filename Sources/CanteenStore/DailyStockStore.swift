import CanteenCore
import Foundation
import GRDB

/// The SQLite implementation of `DailyStockRepository`, and the give-back of a cancelled order.
///
/// Orders take from `dailyStock` inside the order writer (`PlacementBatch.takeStock`): SQLite
/// has one writer, so what an order reads is what it takes, and no batch is ever oversold.
public final class DailyStockStore: DailyStockRepository {
    let database: AppDatabase
    private let cafes: CafeStore
    let clock: @Sendable () -> Date

    public init(database: AppDatabase, cafes: CafeStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.cafes = cafes
        self.clock = clock
    }

    public func remaining(cafeID: String, date: LocalDate) async throws -> [String: Int] {
        try await database.writer.read { db in
            var remaining: [String: Int] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT itemId, remaining FROM dailyStock WHERE cafeId = ? AND localDate = ?
                        """), arguments: [cafeID, date.description])
            {
                remaining[row["itemId"]] = row["remaining"]
            }
            return remaining
        }
    }

    public func setRemaining(
        cafeID: String, itemID: String, remaining: Int,
        audit: AuditEntry?
    ) async throws -> ItemStock {
        let now = clock()
        return try await database.writer.write { db in
            guard let menu = try self.cafes.menu(db, cafeID: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
            let stock = try DailyStock.setting(remaining, of: itemID, in: menu, now: now)
            let stored = try Int.fetchOne(
                db, sql: "SELECT remaining FROM dailyStock WHERE cafeId = ? AND itemId = ? AND localDate = ?",
                arguments: [cafeID, itemID, stock.date.description])
            try AuditStore.record(
                audit, before: ItemStock.audited(remaining: stored ?? stock.dailyQuantity),
                after: ItemStock.audited(remaining: remaining), at: now, db)
            try db.execute(
                sql: """
                    INSERT INTO dailyStock (cafeId, itemId, localDate, remaining) VALUES (?, ?, ?, ?)
                    ON CONFLICT (cafeId, itemId, localDate) DO UPDATE SET remaining = excluded.remaining
                    """, arguments: [cafeID, itemID, stock.date.description, remaining])
            return stock
        }
    }

    /// Gives back what a cancelled order took (inside the cancelling transaction), once.
    static func giveBack(_ db: Database, orderID: String, cafeID: String) throws {
        for row in try Row.fetchAll(
            db, sql: "SELECT itemId, localDate, quantity FROM stockTaken WHERE orderId = ?",
            arguments: [orderID])
        {
            try db.execute(
                sql: """
                    UPDATE dailyStock SET remaining = remaining + ? WHERE cafeId = ? AND itemId = ? AND localDate = ?
                    """,
                arguments: [row["quantity"] as Int, cafeID, row["itemId"] as String, row["localDate"] as String])
        }
        try db.execute(sql: "DELETE FROM stockTaken WHERE orderId = ?", arguments: [orderID])
    }
}
