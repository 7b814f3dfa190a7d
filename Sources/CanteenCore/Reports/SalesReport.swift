import Foundation

/// Sales of a café over a period, per item, per hour of the day or per day, in café-local time:
/// orders, items sold and money (exact minor units), cancelled orders counted apart. A row per
/// currency the orders were charged in (a café that changed currency has two).
public struct SalesReport: Hashable, Sendable {
    /// How the rows are grouped.
    public enum Grouping: String, CaseIterable, Hashable, Sendable {
        case item, hour, day
    }

    /// One group: an item id, an hour of the day (`0`…`23`) or a date (`2026-11-02`).
    public struct Row: Hashable, Sendable {
        public var key: String
        /// The item's names (item rows only).
        public var names: LocalizedText?
        public var currency: String
        public var sold: SalesFigures
        public var cancelled: SalesFigures

        public init(
            key: String, names: LocalizedText? = nil, currency: String, sold: SalesFigures,
            cancelled: SalesFigures
        ) {
            self.key = key
            self.names = names
            self.currency = currency
            self.sold = sold
            self.cancelled = cancelled
        }
    }

    public var rows: [Row]

    /// Per item: what their lines came to (before order discounts and added tax), best sellers first.
    public static func byItem(_ sales: [ItemSales]) -> SalesReport {
        let rows = sales.map {
            Row(key: $0.itemID, names: $0.names, currency: $0.currency, sold: $0.sold, cancelled: $0.cancelled)
        }.sorted { ($1.sold.amount, $0.key, $0.currency) < ($0.sold.amount, $1.key, $1.currency) }
        return SalesReport(rows: rows)
    }

    /// Per hour of the café's day (all 24, empty ones too) or per date of the period (all of
    /// them): what the orders charged. The hour is the café's wall-clock hour when the order was
    /// placed, so a day with a DST change has one hour missing or one hour counted twice.
    public static func byTime(
        _ buckets: [SalesBucket], grouping: Grouping, period: ReportPeriod,
        timeZone: TimeZone, currency: String
    ) -> SalesReport {
        let keys: [String] = grouping == .hour ? (0..<24).map(String.init) : period.dates.map(\.description)
        var sums: [String: [String: (sold: SalesFigures, cancelled: SalesFigures)]] = [:]
        for bucket in buckets {
            let key =
                grouping == .hour ? String(localHour(of: bucket.start, in: timeZone)) : bucket.localDate.description
            let figures = SalesFigures(orders: bucket.orders, items: bucket.items, amount: bucket.total)
            var sum = sums[key, default: [:]][bucket.currency] ?? (.zero, .zero)
            if bucket.cancelled { sum.cancelled = sum.cancelled + figures } else { sum.sold = sum.sold + figures }
            sums[key, default: [:]][bucket.currency] = sum
        }
        var rows: [Row] = []
        for key in keys {
            let byCurrency = sums[key] ?? [currency: (.zero, .zero)]
            for code in byCurrency.keys.sorted(by: { ($0 == currency ? 0 : 1, $0) < ($1 == currency ? 0 : 1, $1) }) {
                let sum = byCurrency[code]!
                rows.append(Row(key: key, currency: code, sold: sum.sold, cancelled: sum.cancelled))
            }
        }
        return SalesReport(rows: rows)
    }

    /// The wall-clock hour (0–23) of `instant` in `timeZone`.
    static func localHour(of instant: Date, in timeZone: TimeZone) -> Int {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: instant))
        return Int(((seconds % 86_400 + 86_400) % 86_400) / 3600)
    }
}
