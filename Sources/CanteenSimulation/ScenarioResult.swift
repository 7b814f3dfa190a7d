import CanteenCore
import Foundation

/// How a scenario's quotes compared with when its orders were ready.
public struct ScenarioResult: Sendable {
    /// Median and 90th percentile of absolute errors, in seconds.
    public struct Errors: Sendable, Encodable {
        public let median: Int
        public let p90: Int

        init(_ errors: [Double]) {
            let sorted = errors.sorted()
            median = StationTimes.percentile(50, of: sorted) ?? 0
            p90 = StationTimes.percentile(90, of: sorted) ?? 0
        }
    }

    public let name: String
    public let orders: Int
    public let refused: [String: Int]
    public let peakPerMinute: Double
    /// `readyAt` against the actual ready time.
    public let readyAt: Errors
    /// "Placing time + the longest dish's prep time" against the actual ready time.
    public let naive: Errors
    /// The share of orders the naive quote missed by more than five minutes.
    public let naiveOverFiveMinutes: Double
    /// The longest an order took from placing to ready, in seconds.
    public let longestWait: Int
    /// Each order: when it was placed (seconds from the start), and the waits quoted, naive
    /// and actual (seconds from placing).
    public let details: [OrderDetail]

    /// One order's times.
    public struct OrderDetail: Sendable, Encodable {
        public let placed: Int
        public let quoted: Int
        public let naive: Int
        public let actual: Int
    }

    init(
        scenario: KitchenScenario, placed: [KitchenSimulation.Placed], refused: [String: Int],
        finishes: KitchenSimulation.Finishes
    ) {
        name = scenario.name
        orders = placed.count
        self.refused = refused
        peakPerMinute = scenario.peakRate
        var quoted: [Double] = []
        var naive: [Double] = []
        var longest = 0.0
        var details: [OrderDetail] = []
        let start = placed.first?.placedAt ?? Date()
        for order in placed {
            guard let ready = finishes.finishes(of: order.id).max() else { continue }
            quoted.append(abs(ready.timeIntervalSince(order.readyAt)))
            naive.append(abs(ready.timeIntervalSince(order.naive)))
            longest = max(longest, ready.timeIntervalSince(order.placedAt))
            let wait = { (instant: Date) in Int(instant.timeIntervalSince(order.placedAt).rounded()) }
            details.append(
                OrderDetail(
                    placed: Int(order.placedAt.timeIntervalSince(start).rounded()),
                    quoted: wait(order.readyAt), naive: wait(order.naive), actual: wait(ready)))
        }
        self.details = details
        readyAt = Errors(quoted)
        self.naive = Errors(naive)
        naiveOverFiveMinutes = naive.isEmpty ? 0 : Double(naive.count { $0 > 300 }) / Double(naive.count)
        longestWait = Int(longest.rounded())
    }

    /// The results as a Markdown table, times as minutes:seconds.
    public static func table(_ results: [ScenarioResult]) -> String {
        func time(_ seconds: Int) -> String { "\(seconds / 60):\(String(format: "%02d", seconds % 60))" }
        var lines = [
            "| scenario | orders | peak orders/min | longest wait | readyAt error median | readyAt error p90 "
                + "| naive error median | naive error p90 | naive off > 5 min |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for result in results {
            lines.append(
                "| \(result.name) | \(result.orders) | \(String(format: "%.1f", result.peakPerMinute)) "
                    + "| \(time(result.longestWait)) | \(time(result.readyAt.median)) | \(time(result.readyAt.p90)) "
                    + "| \(time(result.naive.median)) | \(time(result.naive.p90)) "
                    + "| \(Int((result.naiveOverFiveMinutes * 100).rounded())) % |")
        }
        return lines.joined(separator: "\n")
    }
}

extension ScenarioResult: Encodable {}
