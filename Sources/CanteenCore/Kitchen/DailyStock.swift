import Foundation

/// The rules of dishes made in a fixed daily batch (`dailyQuantity`): each café-local day
/// starts with the whole batch; orders take from what is left of the day they are picked up
/// on, a cancellation gives it back, and ops or the café's kitchen may set what is left.
public enum DailyStock {
    /// The allowed range of a daily quantity.
    public static let quantityRange: ClosedRange<Int64> = 1...100_000

    /// The café-local day whose batch an order picked up at `pickup` takes from. Days follow
    /// the café's own clock, daylight saving time included (a day may last 23 or 25 hours,
    /// and where clocks change at midnight it starts at 01:00).
    public static func day(of pickup: Date, at cafe: Cafe) -> LocalDate {
        LocalDate(pickup, in: cafe.calendar)
    }

    /// When the batch of the day holding `instant` is whole again: the start of the café's next
    /// local day.
    public static func restocksAt(after instant: Date, at cafe: Cafe) -> Date {
        let calendar = cafe.calendar
        let today = calendar.startOfDay(for: instant)
        // Noon of the next day is never skipped by a clock change; its day's start is the answer.
        let noon = calendar.date(byAdding: .hour, value: 36, to: today) ?? today + 36 * 3600
        return calendar.startOfDay(for: noon)
    }

    /// What is left of `item` given the day's stored count (nil: nothing taken yet that day).
    /// Items without a daily quantity are not counted (nil).
    public static func remaining(of item: MenuItem, stored: Int?) -> Int? {
        guard let quantity = item.dailyQuantity else { return nil }
        return stored ?? quantity
    }

    /// What is left after an order's line `line` (its first of the item) takes `quantity` of
    /// `item` from `remaining`; a refusal changes nothing: `item_unavailable` (reason
    /// `sold_out`, naming the line's item) when none is left, `not_enough_left` (409, naming
    /// its quantity) when fewer than asked.
    public static func take(
        _ quantity: Int, of item: MenuItem, from remaining: Int,
        line: Int
    ) throws(CanteenError) -> Int {
        guard remaining > 0 else {
            throw CanteenError.itemUnavailable(item, reason: .soldOut, field: "lines[\(line)].itemId")
        }
        let field = "lines[\(line)].quantity"
        guard quantity <= remaining else {
            throw CanteenError(
                .conflict, code: .notEnoughLeft,
                message: "only \(remaining) of '\(item.id)' left today; \(quantity) asked",
                field: field,
                parameters: [
                    "item": item.id, "remaining": "\(remaining)",
                    "requested": "\(quantity)",
                ])
        }
        return remaining - quantity
    }

    /// The quantity of each limited item an order asks for, with its first line.
    public static func wanted(by lines: [OrderLineRequest], in menu: Menu) -> [StockWant] {
        var wanted: [StockWant] = []
        for (index, line) in lines.enumerated() {
            guard let item = menu.item(line.itemID), item.dailyQuantity != nil else { continue }
            if let known = wanted.firstIndex(where: { $0.item.id == item.id }) {
                wanted[known].quantity += line.quantity
            } else {
                wanted.append(StockWant(item: item, quantity: line.quantity, line: index))
            }
        }
        return wanted
    }
}

/// How many of one limited item an order takes, and its first line (named by errors).
public struct StockWant: Hashable, Sendable {
    public var item: MenuItem
    public var quantity: Int
    public var line: Int

    public init(item: MenuItem, quantity: Int, line: Int) {
        self.item = item
        self.quantity = quantity
        self.line = line
    }
}

/// What is left of one limited item on one café-local day.
public struct ItemStock: Hashable, Sendable {
    public var cafeID: String
    public var itemID: String
    public var date: LocalDate
    public var dailyQuantity: Int
    public var remaining: Int

    public init(cafeID: String, itemID: String, date: LocalDate, dailyQuantity: Int, remaining: Int) {
        self.cafeID = cafeID
        self.itemID = itemID
        self.date = date
        self.dailyQuantity = dailyQuantity
        self.remaining = remaining
    }
}

extension DailyStock {
    /// The batch of `itemID` today (the café's local date at `now`) once set to `remaining`:
    /// `item_not_found`, or `invalid_field` when the item has no daily quantity.
    public static func setting(
        _ remaining: Int, of itemID: String, in menu: CafeMenu,
        now: Date
    ) throws(CanteenError) -> ItemStock {
        guard let item = menu.menu.item(itemID) else { throw CanteenError.notFound(.item, itemID) }
        guard let quantity = item.dailyQuantity else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "'\(itemID)' has no dailyQuantity: only limited dishes have a count left",
                field: "remaining", parameters: ["item": itemID])
        }
        return ItemStock(
            cafeID: menu.cafe.id, itemID: itemID, date: day(of: now, at: menu.cafe),
            dailyQuantity: quantity, remaining: remaining)
    }
}
