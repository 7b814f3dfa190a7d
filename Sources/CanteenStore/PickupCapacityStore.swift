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

    public init(database: AppDatabase, planner: PickupWindowPlanner, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.planner = planner
        self.clock = clock
    }

    public func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability] {
        let offered = planner.offeredWindows(of: cafe, on: date, now: clock())
        return try await database.writer.read { db in
            let used = try Self.usedCapacity(db, cafeID: cafe.id, windows: offered)
            return offered.map {
                PickupWindowAvailability(window: $0, capacity: cafe.pickup.capacity,
                                         remaining: max(0, cafe.pickup.capacity - (used[$0.start] ?? 0)))
            }
        }
    }

    // MARK: - Inside the order writer

    /// The requested window if it is offered and has room, or the earliest offered one with room.
    /// `usedCapacity` gives the units already taken of the offered windows.
    func chooseWindow(cafe: Cafe, choice: PickupChoice, units: Int, now: Date,
                      usedCapacity: (_ offered: [PickupWindow]) throws -> [Date: Int]) throws -> PickupWindow {
        let date: LocalDate
        switch choice {
        case .asap: date = LocalDate(now, in: cafe.calendar)
        case .window(let start): date = LocalDate(start, in: cafe.calendar)
        }
        let all = planner.windows(of: cafe, on: date)
        guard !all.isEmpty else {
            throw CanteenError(.invalid, code: .cafeClosed, message: "café '\(cafe.id)' is closed on \(date)",
                               field: "pickup", parameters: ["date": date.description])
        }
        let offered = planner.offeredWindows(of: cafe, on: date, now: now)
        let used = try usedCapacity(offered)
        let hasRoom = { (window: PickupWindow) in (used[window.start] ?? 0) + units <= cafe.pickup.capacity }
        switch choice {
        case .asap:
            guard !offered.isEmpty else {
                throw CanteenError(.invalid, code: .cafeClosed,
                                   message: "café '\(cafe.id)' has no pickup window left today", field: "pickup")
            }
            guard let window = offered.first(where: hasRoom) else { throw CanteenError.windowFull(field: "pickup") }
            return window
        case .window(let start):
            guard let window = offered.first(where: { $0.start == start }) else {
                let reason = all.contains { $0.start == start }
                    ? "starts too soon: the earliest window starts \(cafe.pickup.leadMinutes) minutes from now"
                    : "is not one of the café's pickup windows on \(date)"
                throw CanteenError(.invalid, code: .pickupWindowUnavailable, message: "the window \(reason)",
                                   field: "pickup.start")
            }
            guard hasRoom(window) else { throw CanteenError.windowFull(field: "pickup.start") }
            return window
        }
    }

    /// Gives back what a cancelled order took.
    static func release(_ db: Database, cafeID: String, windowStart: Date, units: Int) throws {
        try db.execute(sql: "UPDATE pickupSlot SET used = MAX(0, used - ?) WHERE cafeId = ? AND start = ?",
                       arguments: [units, cafeID, Int64(windowStart.timeIntervalSince1970)])
    }

    static func usedCapacity(_ db: Database, cafeID: String, windows: [PickupWindow]) throws -> [Date: Int] {
        guard let first = windows.first, let last = windows.last else { return [:] }
        let statement = try db.cachedStatement(sql: "SELECT start, used FROM pickupSlot WHERE cafeId = ? AND start BETWEEN ? AND ?")
        let rows = try Row.fetchAll(statement, arguments: [cafeID, Int64(first.start.timeIntervalSince1970),
                                                           Int64(last.start.timeIntervalSince1970)])
        var used: [Date: Int] = [:]
        for row in rows { used[Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64))] = row["used"] }
        return used
    }
}

extension CanteenError {
    static func windowFull(field: String) -> CanteenError {
        CanteenError(.conflict, code: .pickupWindowFull, message: "the pickup window is full; choose another",
                     field: field)
    }
}
