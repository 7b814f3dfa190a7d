import CanteenCore
import CanteenFormat
import Foundation

// `swift run -c release format-bench [seconds]`: prices and pickup windows formatted per second
// on one core, through the shared cached formatters, with amounts and times varying every call.

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 2.0

/// Runs `body(i)` for about `seconds` after a warm-up; returns calls per second.
func measure(_ name: String, _ body: (Int) -> Int) -> Double {
    var sink = 0
    for i in 0..<2_000 { sink &+= body(i) }
    let clock = ContinuousClock()
    let start = clock.now
    var calls = 0
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    while clock.now - start < budget {
        for _ in 0..<1_000 {
            sink &+= body(calls)
            calls += 1
        }
    }
    let elapsed = clock.now - start
    let perSecond = Double(calls) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    let nanos = 1e9 / perSecond
    print("\(name): \(Int(perSecond)) per second (\(String(format: "%.2f", nanos / 1000)) µs each, \(calls) calls, check \(sink & 0xFF))")
    return perSecond
}

// MARK: - Prices

let priceLocales = ["en_US", "es_UY", "hi_IN", "ar_EG", "de_CH", "fr_FR", "ja_JP", "zh-Hans-CN"].map { Locale(identifier: $0) }
let currencies = [Currency.usd, Currency.eur, Currency.jpy, Currency.kwd]
let prices = PriceFormatter.shared

let single = Locale(identifier: "en_US")
let pricesOnePair = measure("prices, one locale × currency (en_US, USD)") { i in
    prices.format(Money(minorUnits: Int64(i % 100_000) * 7 + 5, currency: .usd), locale: single).utf8.count
}
let pricesMixed = measure("prices, 8 locales × 4 currencies") { i in
    let money = Money(minorUnits: Int64(i % 100_000) * 13 + 1, currency: currencies[i & 3])
    return prices.format(money, locale: priceLocales[(i >> 2) & 7]).utf8.count
}

// MARK: - Pickup windows

let zones = ["America/Chicago", "Asia/Tokyo", "Europe/Paris", "Asia/Kuwait"].compactMap(TimeZone.init(identifier:))
let windows = PickupWindowFormatter.shared
let base = Date(timeIntervalSince1970: 1_780_000_000)
let windowsPerSecond = measure("pickup windows, 8 locales × 4 zones") { i in
    let start = base.addingTimeInterval(Double(i % 10_000) * 900)
    return windows.label(start: start, end: start.addingTimeInterval(900), timeZone: zones[i & 3],
                         locale: priceLocales[(i >> 2) & 7]).utf8.count
}

print("prices/s: \(Int(pricesMixed)) (target 400000: \(pricesMixed >= 400_000 ? "met" : "NOT met")); one pair: \(Int(pricesOnePair))")
print("pickup windows/s: \(Int(windowsPerSecond))")
