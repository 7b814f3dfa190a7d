import BenchFigures
import CanteenCore
import CanteenFormat
import Foundation

// `swift run -c release format-bench [seconds]`: prices and pickup windows formatted per second
// on one core, through the shared cached formatters, with amounts and times varying every call.
// `format-bench --calls N` makes exactly N calls per measurement instead (for profilers such as
// `valgrind --tool=callgrind`, whose instruction counts do not depend on the machine's load).

let arguments = Array(CommandLine.arguments.dropFirst())
let fixedCalls = arguments.firstIndex(of: "--calls").flatMap {
    arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil
}
let seconds = arguments.first.flatMap(Double.init) ?? 2.0

/// CPU time this thread has used, in seconds: unlike the wall clock, it does not count the time
/// the shared machine's other processes hold the core.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body(i)` for about `seconds` after a warm-up; returns calls per CPU second.
func measure(_ name: String, _ body: (Int) -> Int) -> Double {
    var sink = 0
    for i in 0..<2_000 { sink &+= body(i) }
    let clock = ContinuousClock()
    let cpuStart = threadCPUSeconds()
    let start = clock.now
    var calls = 0
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    while fixedCalls.map({ calls < $0 }) ?? (clock.now - start < budget) {
        for _ in 0..<1_000 {
            sink &+= body(calls)
            calls += 1
        }
    }
    let elapsed = clock.now - start
    let cpu = threadCPUSeconds() - cpuStart
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let perCPUSecond = Double(calls) / cpu
    let perWallSecond = Double(calls) / wall
    print(
        "\(name): \(Int(perCPUSecond)) per CPU second (\(String(format: "%.2f", 1e6 / perCPUSecond)) µs each); "
            + "\(Int(perWallSecond)) per wall-clock second; \(calls) calls, check \(sink & 0xFF)")
    return perCPUSecond
}

// MARK: - Prices

let priceLocales = ["en_US", "es_UY", "hi_IN", "ar_EG", "de_CH", "fr_FR", "ja_JP", "zh-Hans-CN"].map {
    Locale(identifier: $0)
}
let currencies = [Currency.usd, Currency.eur, Currency.jpy, Currency.kwd]
let prices = PriceFormatter()

let single = Locale(identifier: "en_US")
// The floor: Foundation's own call with a style built once, no cache and no Money in between.
let bareStyle = Decimal.FormatStyle.Currency(code: "USD", locale: single)
let floor = measure("floor: Decimal.FormatStyle.Currency.format alone (en_US, USD)") { i in
    bareStyle.format(Decimal(sign: .plus, exponent: -2, significand: Decimal(UInt64(i % 100_000) * 7 + 5))).utf8.count
}
let pricesOnePair = measure("prices, one locale × currency (en_US, USD)") { i in
    prices.format(Money(minorUnits: Int64(i % 100_000) * 7 + 5, currency: .usd), locale: single).utf8.count
}
let pricesMixed = measure("prices, 8 locales × 4 currencies, every amount new (ICU renders each)") { i in
    let money = Money(minorUnits: Int64(i) * 13 + 1, currency: currencies[i & 3])
    return prices.format(money, locale: priceLocales[(i >> 2) & 7]).utf8.count
}
// A menu's workload: 300 distinct prices per café, rendered for 8 reader locales over and over.
let menuPrices = (0..<300).map { Int64($0) * 37 + 95 }
let pricesMenu = measure("prices, 8 locales × 4 currencies, a menu's 300 prices repeated") { i in
    let money = Money(minorUnits: menuPrices[i % 300], currency: currencies[(i / 300) & 3])
    return prices.format(money, locale: priceLocales[(i / 1_200) & 7]).utf8.count
}

// MARK: - Pickup windows

let zones = ["America/Chicago", "Asia/Tokyo", "Europe/Paris", "Asia/Kuwait"].compactMap(TimeZone.init(identifier:))
let windows = PickupWindowFormatter()
let base = Date(timeIntervalSince1970: 1_780_000_000)
// 320,000 distinct labels: far more than the label cache holds, so ICU renders nearly each one.
let windowsPerSecond = measure("pickup windows, 8 locales × 4 zones, nearly every label new") { i in
    let start = base.addingTimeInterval(Double(i % 10_000) * 900)
    return windows.label(
        start: start, end: start.addingTimeInterval(900), timeZone: zones[i & 3],
        locale: priceLocales[(i >> 2) & 7]
    ).utf8.count
}
// A day's 96 quarter-hour windows for 8 locales × 4 zones, over and over (orders and tickets).
let windowsDay = measure("pickup windows, a day's 96 windows × 8 locales × 4 zones repeated") { i in
    let start = base.addingTimeInterval(Double(i % 96) * 900)
    return windows.label(
        start: start, end: start.addingTimeInterval(900), timeZone: zones[(i / 96) & 3],
        locale: priceLocales[(i / 384) & 7]
    ).utf8.count
}

print(
    "prices per CPU second: menu workload \(Int(pricesMenu)) (target 400000: \(pricesMenu >= 400_000 ? "met" : "NOT met")); "
        + "every amount new \(Int(pricesMixed)); one pair \(Int(pricesOnePair)); Foundation floor \(Int(floor))")
print(
    "pickup windows per CPU second: nearly every label new \(Int(windowsPerSecond)); a day's windows repeated \(Int(windowsDay))"
)

BenchFigures.record(
    "format_floor", floor, unit: "prices/s", title: "Foundation's Decimal.FormatStyle.Currency alone, one core")
BenchFigures.record(
    "format_prices_menu", pricesMenu, unit: "prices/s",
    title: "prices formatted, a menu's 300 prices × 8 locales × 4 currencies, one core", reference: "format_floor")
BenchFigures.record(
    "format_prices_new", pricesMixed, unit: "prices/s",
    title: "prices formatted, every amount new (ICU renders each), one core", reference: "format_floor")
BenchFigures.record(
    "format_windows_day", windowsDay, unit: "labels/s",
    title: "pickup-window labels, a day's windows repeated, one core")
BenchFigures.record(
    "format_windows_new", windowsPerSecond, unit: "labels/s",
    title: "pickup-window labels, nearly every label new, one core")
