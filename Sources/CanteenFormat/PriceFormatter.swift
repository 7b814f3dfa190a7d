import CanteenCore
import Foundation

/// Renders money in a reader's locale with ICU's currency format, caching one style per
/// (locale, currency).
///
/// Amounts go from minor units to `Decimal` exactly and are rendered by
/// `Decimal.FormatStyle.Currency`, so digit grouping (`₹12,34,567.89`), numbering systems
/// (`ar_EG`) and the currency's display digits (JPY 0, KWD 3) follow CLDR. Where CLDR shows
/// fewer digits than ISO 4217 defines (IQD, RSD, LAK show none), an amount those digits cannot
/// show exactly keeps its ISO digits rather than being rounded.
///
/// Rendered strings are also remembered per style (up to 4,096 amounts): a menu
/// shows the same few hundred prices over and over, and ICU's rendering of a `Decimal` costs
/// far more than a dictionary lookup (docs/benchmarks.md has the figures). An amount seen before
/// costs one lookup; every new one still goes through the real `FormatStyle`.
public final class PriceFormatter: Sendable {
    private let styles: BoundedCache<StyleKey, CurrencyStyles>

    /// A formatter whose cache holds at most `cacheCapacity` (locale, currency) pairs.
    public init(cacheCapacity: Int = 1024) {
        styles = BoundedCache(capacity: cacheCapacity)
    }

    // MARK: - Formatting

    /// `money` in `locale`'s conventions, in `money`'s own currency (`$4.50`, `US$ 4,50`).
    public func format(_ money: Money, locale: Locale) -> String {
        let currency = money.currency
        let entry = styles.value(for: StyleKey(locale: locale.identifier, currency: currency.code)) {
            CurrencyStyles(currency: currency, locale: locale)
        }
        return entry.format(minorUnits: money.minorUnits)
    }

    /// `minorUnits` of the currency `currencyCode` in `locale`'s conventions; throws
    /// `unknown_currency` for a code that is not active ISO 4217 (ICU would accept `XYZ`).
    public func format(minorUnits: Int64, currencyCode: String, locale: Locale) throws(CanteenError) -> String {
        let currency = try Currency(code: currencyCode)
        return format(Money(minorUnits: minorUnits, currency: currency), locale: locale)
    }

    /// How many (locale, currency) styles are cached now.
    public var cachedStyleCount: Int { styles.count }
}

// MARK: - Cache entries

extension PriceFormatter {
    struct StyleKey: Hashable, Sendable {
        var locale: String
        var currency: String
    }

    /// The styles of one (locale, currency): CLDR's own, and an exact one where CLDR shows
    /// fewer fraction digits than ISO 4217 defines. A class, so a cache hit copies one reference.
    final class CurrencyStyles: Sendable {
        let standard: Decimal.FormatStyle.Currency
        /// Set only when CLDR hides some of the ISO digits: shows between CLDR's and ISO's.
        let exact: Decimal.FormatStyle.Currency?
        /// Amounts divisible by this many minor units lose nothing in the standard style.
        let hiddenUnit: Int64
        /// The ISO 4217 minor-unit digits of the currency.
        let fractionDigits: Int

        init(currency: Currency, locale: Locale) {
            fractionDigits = currency.minorUnits
            let standard = Decimal.FormatStyle.Currency(code: currency.code, locale: locale)
            self.standard = standard
            let shown = CurrencyStyles.displayedFractionDigits(of: standard, atMost: currency.minorUnits)
            if shown < currency.minorUnits {
                exact = standard.precision(.fractionLength(shown...currency.minorUnits))
                var unit: Int64 = 1
                for _ in shown..<currency.minorUnits { unit *= 10 }
                hiddenUnit = unit
            } else {
                exact = nil
                hiddenUnit = 1
            }
        }

        /// Amounts already rendered with this style.
        private let rendered = BoundedCache<Int64, String>(capacity: 4096)

        func format(minorUnits: Int64) -> String {
            rendered.value(for: minorUnits) { render(minorUnits: minorUnits) }
        }

        private func render(minorUnits: Int64) -> String {
            let amount = Decimal(minorUnits: minorUnits, fractionDigits: fractionDigits)
            if let exact, minorUnits % hiddenUnit != 0 { return exact.format(amount) }
            return standard.format(amount)
        }

        /// The fraction digits `style` shows, found by asking it: 10^-d renders as zero once d
        /// exceeds them. Capped at `limit` (the ISO digits).
        static func displayedFractionDigits(of style: Decimal.FormatStyle.Currency, atMost limit: Int) -> Int {
            guard limit > 0 else { return 0 }
            let zero = style.format(Decimal(0))
            for digits in stride(from: limit, through: 1, by: -1) {
                let smallest = Decimal(sign: .plus, exponent: -digits, significand: 1)
                if style.format(smallest) != zero { return digits }
            }
            return 0
        }
    }
}
