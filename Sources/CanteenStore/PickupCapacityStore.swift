import CanteenCore
import Foundation
import GRDB

/// The SQLite implementation of `PickupCapacityRepository`, and the capacity rules the order
/// writer applies inside its transaction: a window is chosen and its capacity taken in the same
/// transaction that writes the order, so concurrent kiosks can never overbook it.
public final class PickupCapacityStore: PickupCapacityRepository {
    let database: AppDatabase
    let planner: PickupWindowPlanner
    let clock: @Sendable () -> Date

    public init(database: AppDatabase, planner: PickupWindowPlanner, clock: @escaping @Sendable () -> Date = Date.init)
    {
        self.database = database
        self.planner = planner
        self.clock = clock
    }

    public func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability] {
        let offered = planner.offeredWindows(of: cafe, on: date, now: clock())
        return try await database.writer.read { db in
            let used = try Self.usedCapacity(db, cafeID: cafe.id, windows: offered)
            return offered.map {
                PickupWindowAvailability(
                    window: $0, capacity: cafe.pickup.capacity,
                    remaining: max(0, cafe.pickup.capacity - (used[$0.start] ?? 0)))
            }
        }
    }

    // MARK: - Inside the order writer

    /// The requested window if it is offered, has room and the kitchen meets it, or the earliest
    /// offered one with room that it meets, with the order's kitchen plan for it (`plan`).
    /// `usedCapacity` gives the units already taken of the offered windows.
    func chooseWindow(
        cafe: Cafe, choice: PickupChoice, units: Int, now: Date,
        plan: @escaping (PickupWindow) -> KitchenPlan,
        usedCapacity: (_ offered: [PickupWindow]) throws -> [Date: Int]
    ) throws
        -> (window: PickupWindow, plan: KitchenPlan)
    {
        let candidates = try planner.candidates(for: choice, of: cafe, now: now)
        let chosen = try candidates.choose(units: units, used: try usedCapacity(candidates.offered), plan: plan)
        return (chosen.window, chosen.plan ?? plan(chosen.window))
    }

    /// Gives back what a cancelled order took.
    static func release(_ db: Database, cafeID: String, windowStart: Date, units: Int) throws {
        try db.execute(
            sql: "UPDATE pickupSlot SET used = MAX(0, used - ?) WHERE cafeId = ? AND start = ?",
            arguments: [units, cafeID, Int64(windowStart.timeIntervalSince1970)])
    }

    static func usedCapacity(_ db: Database, cafeID: String, windows: [PickupWindow]) throws -> [Date: Int] {
        guard let first = windows.first, let last = windows.last else { return [:] }
        let statement = try db.cachedStatement(
            sql: "SELECT start, used FROM pickupSlot WHERE cafeId = ? AND start BETWEEN ? AND ?")
        let rows = try Row.fetchAll(
            statement,
            arguments: [
                cafeID, Int64(first.start.timeIntervalSince1970),
                Int64(last.start.timeIntervalSince1970),
            ])
        var used: [Date: Int] = [:]
        for row in rows { used[Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64))] = row["used"] }
        return used
    }
}
