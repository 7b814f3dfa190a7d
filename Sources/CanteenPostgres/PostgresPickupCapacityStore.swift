import CanteenCore
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `PickupCapacityRepository`, and the capacity reads of the
/// order transaction: the window is chosen by the rule both engines share
/// (`PickupCandidates.choose`) and taken (in `PostgresOrderStore`) with a conditional update that
/// re-checks the room under the row's lock, so orders sent to different servers can never
/// overbook a window.
public final class PostgresPickupCapacityStore: PickupCapacityRepository {
    let database: PostgresDatabase
    let planner: PickupWindowPlanner
    let clock: @Sendable () -> Date

    public init(
        database: PostgresDatabase, planner: PickupWindowPlanner, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.planner = planner
        self.clock = clock
    }

    public func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability] {
        let offered = planner.offeredWindows(of: cafe, on: date, now: clock())
        let used = try await database.withConnection { connection in
            try await Self.usedCapacity(connection, cafeID: cafe.id, windows: offered, logger: self.database.logger)
        }
        return offered.map {
            PickupWindowAvailability(
                window: $0, capacity: cafe.pickup.capacity,
                remaining: max(0, cafe.pickup.capacity - (used[$0.start] ?? 0)))
        }
    }

    // MARK: - Inside the order transaction

    /// The units each of `windows` has used.
    static func usedCapacity(
        _ connection: PostgresConnection, cafeID: String, windows: [PickupWindow],
        logger: Logger
    ) async throws -> [Date: Int] {
        guard let first = windows.first, let last = windows.last else { return [:] }
        var used: [Date: Int] = [:]
        for row in try await connection.rows(
            UsedCapacity(cafeID: cafeID, first: Self.key(first.start), last: Self.key(last.start)), logger: logger)
        {
            let (start, units) = try StoredColumns.decode(row, table: "pickupSlot", (Int64, Int).self)
            used[Date(timeIntervalSince1970: TimeInterval(start))] = units
        }
        return used
    }

    /// The used capacity of a café's windows starting from `first` to `last` (keys). Prepared:
    /// every batch of orders runs it.
    struct UsedCapacity: FixedStatement {
        static let sql = UsedCapacity(cafeID: "", first: 0, last: 0).query.sql

        let cafeID: String
        let first: Int64
        let last: Int64

        var query: PostgresQuery {
            "SELECT start, used FROM pickupSlot WHERE cafeId = \(cafeID) AND start BETWEEN \(first) AND \(last)"
        }
    }

    /// Gives back what a cancelled order took.
    static func release(
        _ connection: PostgresConnection, cafeID: String, windowStart: Date, units: Int,
        logger: Logger
    ) async throws {
        try await connection.run(
            """
            UPDATE pickupSlot SET used = GREATEST(0, used - \(units)) WHERE cafeId = \(cafeID) AND start = \(Self.key(windowStart))
            """, logger: logger)
    }

    /// A window's key in `pickupSlot`: its start in Unix seconds, as the SQLite store keeps it.
    static func key(_ start: Date) -> Int64 { Int64(start.timeIntervalSince1970) }
}
