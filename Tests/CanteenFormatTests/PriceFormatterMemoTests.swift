import CanteenCore
import CanteenFormat
import Foundation
import Testing

@Suite("Remembered price renderings")
struct PriceFormatterMemoTests {
    @Test("a price rendered again (locale en_US, de_CH) is identical to a fresh rendering, for thousands of amounts")
    func memoMatchesFresh() {
        let remembered = PriceFormatter(cacheCapacity: 8)
        for identifier in ["en_US", "de_CH"] {
            let locale = Locale(identifier: identifier)
            for amount in stride(from: Int64(-5_000), through: 5_000, by: 7) {
                let money = Money(minorUnits: amount, currency: .usd)
                let first = remembered.format(money, locale: locale)
                let again = remembered.format(money, locale: locale)
                let fresh = PriceFormatter(cacheCapacity: 1).format(money, locale: locale)
                #expect(first == fresh)
                #expect(again == fresh)
            }
        }
    }
}
