import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// What one group-commit transaction knows of the rows that every order in it reads and bumps:
/// the café's menu, the kitchen feed's sequence, the day's order numbers, the pickup windows'
/// used capacity, what is left of limited items, and a timed café's kitchen (its queue). Each
/// row is read once per transaction, kept here while the transaction's orders take from it, and
/// written back once, before the commit (`flush`). It also keeps each item's names as order
/// lines store them (JSON text), written once per transaction rather than once per line.
///
/// This is exact, not a cache: SQLite has one writer, so nothing else can change these rows while
/// the transaction is open. A refused order rolls back its savepoint and its caller puts back the
/// copy of this value taken before it (a `struct`), so it takes no number, sequence or capacity;
/// in a batch run without savepoints, a refused order rolls back the whole transaction, and the
/// batch runs again from a new value.
struct PlacementBatch {
    private var menus: [String: CafeMenu] = [:]
    private var hasLegacyKeys: Bool?
    private var sequence: (stored: Int64, last: Int64)?
    private var numbers: [NumberKey: (stored: Int?, last: Int)] = [:]
    private var slots: [SlotKey: (stored: Int?, used: Int)] = [:]
    /// Ranges of window starts (Unix seconds) whose `pickupSlot` rows are all in `slots`, per café.
    private var loadedSlots: [String: [ClosedRange<Int64>]] = [:]
    /// Each timed café's kitchen, with the tickets this transaction placed added.
    private var kitchens: [String: KitchenLoad] = [:]
    /// What is left of limited items per (café, item, day): as stored (nil: no row) and now.
    private var stock: [StockKey: (stored: Int?, remaining: Int)] = [:]
    /// Each item's names as an order line stores them, written once per transaction.
    var itemNames = StoredItemNames()

    private struct StockKey: Hashable {
        let cafeID: String
        let itemID: String
        let localDate: String
    }

    private struct NumberKey: Hashable {
        let cafeID: String
        let localDate: String
    }

    private struct SlotKey: Hashable {
        let cafeID: String
        let start: Int64
    }

    // MARK: - Reads

    /// The café's current menu (read once per transaction).
    mutating func menu(_ db: Database, cafeID: String, cafes: CafeStore) throws -> CafeMenu? {
        if let menu = menus[cafeID] { return menu }
        let menu = try cafes.menu(db, cafeID: cafeID)
        menus[cafeID] = menu
        return menu
    }

    /// Whether `idempotencyKey` (answers stored before v5) holds any row. Nothing writes that
    /// table any more, so when it is empty a new key need not be looked up there.
    mutating func hasLegacyIdempotencyKeys(_ db: Database) throws -> Bool {
        if let hasLegacyKeys { return hasLegacyKeys }
        let exists = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM idempotencyKey)")) ?? true
        hasLegacyKeys = exists
        return exists
    }

    /// Units already taken of each of `windows` (consecutive windows of one café).
    mutating func usedCapacity(_ db: Database, cafeID: String, windows: [PickupWindow]) throws -> [Date: Int] {
        guard let first = windows.first, let last = windows.last else { return [:] }
        let range = Self.seconds(first.start)...Self.seconds(last.start)
        if !(loadedSlots[cafeID] ?? []).contains(where: {
            $0.contains(range.lowerBound) && $0.contains(range.upperBound)
        }) {
            let stored = try PickupCapacityStore.usedCapacity(db, cafeID: cafeID, windows: windows)
            for (start, used) in stored where slots[SlotKey(cafeID: cafeID, start: Self.seconds(start))] == nil {
                slots[SlotKey(cafeID: cafeID, start: Self.seconds(start))] = (stored: used, used: used)
            }
            loadedSlots[cafeID, default: []].append(range)
        }
        var used: [Date: Int] = [:]
        for window in windows {
            if let slot = slots[SlotKey(cafeID: cafeID, start: Self.seconds(window.start))] {
                used[window.start] = slot.used
            }
        }
        return used
    }

    /// The café's kitchen as this transaction sees it (read once, then kept up to date with
    /// the tickets it places).
    mutating func kitchenLoad(_ db: Database, cafeID: String, now: Date) throws -> KitchenLoad {
        if let load = kitchens[cafeID] { return load }
        let load = try TicketStore.kitchenLoad(db, cafeID: cafeID, now: now)
        kitchens[cafeID] = load
        return load
    }

    /// Adds an order's tickets to the café's kitchen (when it was read in this transaction).
    mutating func queue(_ tickets: [OpenTicket], cafeID: String) {
        kitchens[cafeID]?.add(tickets)
    }

    // MARK: - Takes

    /// Takes what `want` asks of its item's batch of `localDate` (checked: `DailyStock.take`).
    mutating func takeStock(_ db: Database, cafeID: String, localDate: String, want: StockWant) throws {
        guard let quantity = want.item.dailyQuantity else { return }
        let key = StockKey(cafeID: cafeID, itemID: want.item.id, localDate: localDate)
        let current: (stored: Int?, remaining: Int)
        if let known = stock[key] {
            current = known
        } else {
            let stored = try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT remaining FROM dailyStock WHERE cafeId = ? AND itemId = ? AND localDate = ?
                        """), arguments: [cafeID, want.item.id, localDate])
            current = (stored: stored, remaining: stored ?? quantity)
        }
        let left = try DailyStock.take(want.quantity, of: want.item, from: current.remaining, line: want.line)
        stock[key] = (stored: current.stored, remaining: left)
    }

    /// Takes `units` of the window's capacity (checked against `usedCapacity` by the caller).
    mutating func take(_ db: Database, cafeID: String, window: PickupWindow, units: Int) throws {
        let key = SlotKey(cafeID: cafeID, start: Self.seconds(window.start))
        if slots[key] == nil {
            _ = try usedCapacity(db, cafeID: cafeID, windows: [window])
        }
        let slot = slots[key] ?? (stored: nil, used: 0)
        slots[key] = (stored: slot.stored, used: slot.used + units)
    }

    /// The café's next order number of its local day, from 1.
    mutating func nextOrderNumber(_ db: Database, cafeID: String, localDate: String) throws -> Int {
        let key = NumberKey(cafeID: cafeID, localDate: localDate)
        let current: (stored: Int?, last: Int)
        if let known = numbers[key] {
            current = known
        } else {
            let stored = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT last FROM orderNumber WHERE cafeId = ? AND localDate = ?"),
                arguments: [cafeID, localDate])
            current = (stored: stored, last: stored ?? 0)
        }
        numbers[key] = (stored: current.stored, last: current.last + 1)
        return current.last + 1
    }

    /// The kitchen feed's next sequence number.
    mutating func nextSequence(_ db: Database) throws -> Int64 {
        let current: (stored: Int64, last: Int64)
        if let sequence {
            current = sequence
        } else {
            guard
                let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM feedSequence WHERE id = 1"))
            else {
                throw StoredRow.invalid(table: "feedSequence", id: "1", "the row is missing")
            }
            current = (stored: stored, last: stored)
        }
        sequence = (stored: current.stored, last: current.last + 1)
        return current.last + 1
    }

    // MARK: - Writing back

    /// Writes every number, sequence and capacity taken back to its row (before the commit).
    mutating func flush(_ db: Database) throws {
        if let sequence, sequence.last != sequence.stored {
            try db.cachedStatement(sql: "UPDATE feedSequence SET value = ? WHERE id = 1").execute(arguments: [
                sequence.last
            ])
            self.sequence = (stored: sequence.last, last: sequence.last)
        }
        for (key, number) in numbers where number.last != number.stored {
            try db.cachedStatement(
                sql: """
                    INSERT INTO orderNumber (cafeId, localDate, last) VALUES (?, ?, ?)
                    ON CONFLICT (cafeId, localDate) DO UPDATE SET last = excluded.last
                    """
            ).execute(arguments: [key.cafeID, key.localDate, number.last])
            numbers[key] = (stored: number.last, last: number.last)
        }
        for (key, slot) in slots where slot.used != slot.stored {
            try db.cachedStatement(
                sql: """
                    INSERT INTO pickupSlot (cafeId, start, used) VALUES (?, ?, ?)
                    ON CONFLICT (cafeId, start) DO UPDATE SET used = excluded.used
                    """
            ).execute(arguments: [key.cafeID, key.start, slot.used])
            slots[key] = (stored: slot.used, used: slot.used)
        }
        for (key, item) in stock where item.remaining != item.stored {
            try db.cachedStatement(
                sql: """
                    INSERT INTO dailyStock (cafeId, itemId, localDate, remaining) VALUES (?, ?, ?, ?)
                    ON CONFLICT (cafeId, itemId, localDate) DO UPDATE SET remaining = excluded.remaining
                    """
            ).execute(arguments: [key.cafeID, key.itemID, key.localDate, item.remaining])
            stock[key] = (stored: item.remaining, remaining: item.remaining)
        }
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970) }
}
