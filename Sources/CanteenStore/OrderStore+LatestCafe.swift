import CanteenCore
import Foundation
import GRDB

extension OrderStore {
    /// The café of the user's newest order (index `customerOrder_on_userId_createdAt`).
    public func latestOrderCafeID(userID: String) async throws -> String? {
        try await database.writer.read { db in
            try String.fetchOne(db, sql: Self.latestCafeSQL, arguments: [userID])
        }
    }

    static let latestCafeSQL = """
        SELECT cafeId FROM customerOrder WHERE userId = ? ORDER BY createdAt DESC, rowid DESC LIMIT 1
        """
}
