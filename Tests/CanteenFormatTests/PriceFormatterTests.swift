import CanteenCore
import Foundation
import Testing

@testable import CanteenFormat

@Suite("Prices in the reader's locale and the café's currency")
struct PriceFormatterTests {
    let formatter = PriceFormatter(cacheCapacity: 64)

    func money(_ minorUnits: Int64, _ code: String) throws -> Money {
        Money(minorUnits: minorUnits, currency: try Currency(code: code))
    }

    // MARK: - Golden strings

    @Test(
        "13 locales × 6 currencies render as this toolchain's CLDR says",
        arguments: PriceGoldens.grid)
    func grid(locale: String, currency: String, expected: String) throws {
        let text = formatter.format(try money(123_456_789, currency), locale: Locale(identifier: locale))
        #expect(text == expected, "locale \(locale), \(currency)")
    }

    @Test("negative amounts keep the locale's sign position", arguments: PriceGoldens.negatives)
    func negatives(locale: String, currency: String, minorUnits: Int64, expected: String) throws {
        let text = formatter.format(try money(minorUnits, currency), locale: Locale(identifier: locale))
        #expect(text == expected, "locale \(locale), \(currency)")
    }

    @Test("amounts at Int64's limits are exact to the last digit", arguments: PriceGoldens.limits)
    func limits(locale: String, currency: String, minorUnits: Int64, expected: String) throws {
        let text = formatter.format(try money(minorUnits, currency), locale: Locale(identifier: locale))
        #expect(text == expected, "locale \(locale), \(currency), \(minorUnits)")
    }

    // MARK: - The cases the issue names

    @Test("hi_IN groups INR in lakhs and crores (locale hi_IN)")
    func indianGrouping() throws {
        #expect(formatter.format(try money(123_456_789, "INR"), locale: Locale(identifier: "hi_IN")) == "₹12,34,567.89")
    }

    @Test("a Texas café shows US dollars with Uruguayan separators (locale es_UY)")
    func dollarsForUruguay() throws {
        #expect(formatter.format(try money(450, "USD"), locale: Locale(identifier: "es_UY")) == "US$\u{00A0}4,50")
    }

    @Test("yen have no decimals and dinars three (locale ja_JP)")
    func currencyDigits() throws {
        let japan = Locale(identifier: "ja_JP")
        #expect(formatter.format(try money(480, "JPY"), locale: japan) == "¥480")
        #expect(formatter.format(try money(1_250, "KWD"), locale: japan) == "KWD\u{00A0}1.250")
    }

    @Test("ar_EG uses Arabic-Indic digits and ar-EG-u-nu-latn Latin ones")
    func arabicDigits() throws {
        let amount = try money(450, "EGP")
        #expect(
            formatter.format(amount, locale: Locale(identifier: "ar_EG"))
                == "\u{200F}\u{0664}\u{066B}\u{0665}\u{0660}\u{00A0}\u{062C}.\u{0645}.\u{200F}")
        #expect(
            formatter.format(amount, locale: Locale(identifier: "ar-EG-u-nu-latn"))
                == "\u{200F}4.50\u{00A0}\u{062C}.\u{0645}.\u{200F}")
    }

    @Test("amounts ending in 5 are not rounded through Double (locale en_US)")
    func noDoubleRounding() throws {
        // Decimal(1.005) would be 1.00499999…; built from minor units it is exactly 1.005.
        #expect(formatter.format(try money(1_005, "KWD"), locale: Locale(identifier: "en_US")) == "KWD\u{00A0}1.005")
        #expect(
            formatter.format(try money(1_234_567_890_123_456_789, "USD"), locale: Locale(identifier: "en_US"))
                == "$12,345,678,901,234,567.89")
    }

    @Test("where CLDR hides ISO digits, an amount they cannot show keeps them (locale en_US)")
    func hiddenDigitsAreNotRoundedAway() throws {
        let english = Locale(identifier: "en_US")
        // IQD has 3 ISO 4217 digits; CLDR shows 0.
        #expect(formatter.format(try money(1_000, "IQD"), locale: english) == "IQD\u{00A0}1")
        #expect(formatter.format(try money(1_500, "IQD"), locale: english) == "IQD\u{00A0}1.5")
        #expect(formatter.format(try money(1_234, "IQD"), locale: english) == "IQD\u{00A0}1.234")
        #expect(formatter.format(try money(12_050, "RSD"), locale: english) == "RSD\u{00A0}120.5")
    }

    // MARK: - Errors and cache

    @Test("an unknown currency code is rejected, not formatted (locale en_US)")
    func unknownCurrency() {
        #expect(throws: CanteenError.self) {
            try formatter.format(minorUnits: 100, currencyCode: "XYZ", locale: Locale(identifier: "en_US"))
        }
        do throws(CanteenError) {
            _ = try formatter.format(minorUnits: 100, currencyCode: "usd", locale: Locale(identifier: "en_US"))
            Issue.record("lower-case code accepted")
        } catch {
            #expect(error.code == .unknownCurrency)
            #expect(error.parameters["currency"] == "usd")
        }
    }

    @Test("a code from the ISO table formats through the checked entry point (locale de_DE)")
    func checkedEntryPoint() throws {
        #expect(
            try formatter.format(minorUnits: 450, currencyCode: "EUR", locale: Locale(identifier: "de_DE"))
                == "4,50\u{00A0}€")
    }

    @Test("the style cache never grows past its capacity")
    func boundedCache() throws {
        let small = PriceFormatter(cacheCapacity: 3)
        for code in ["USD", "EUR", "JPY", "KWD", "INR", "CHF", "GBP"] {
            _ = small.format(try money(100, code), locale: Locale(identifier: "en_US"))
            #expect(small.cachedStyleCount <= 3)
        }
        #expect(small.cachedStyleCount >= 1)
    }

    @Test("concurrent callers get the same strings as a single caller (locale fr_FR)")
    func concurrentUse() async throws {
        let shared = PriceFormatter(cacheCapacity: 4)
        let currencies = [Currency.usd, .eur, .jpy, .kwd, try Currency(code: "CHF")]
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<200).allSatisfy { i in
                        let money = Money(
                            minorUnits: Int64(task * 1000 + i), currency: currencies[i % currencies.count])
                        let locale = Locale(identifier: "fr_FR")
                        return shared.format(money, locale: locale)
                            == PriceFormatter(cacheCapacity: 1).format(money, locale: locale)
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
    }

    @Test("a formatted money value encodes as amount, currency and formatted (locale ja_JP)")
    func encoding() throws {
        let value = formatter.formatted(try money(480, "JPY"), locale: Locale(identifier: "ja_JP"))
        #expect(value == FormattedMoney(amount: 480, currency: "JPY", formatted: "¥480"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(json == #"{"amount":480,"currency":"JPY","formatted":"¥480"}"#)
    }

    @Test("minor units become Decimal exactly, Int64.min included")
    func exactDecimal() {
        #expect(Decimal(minorUnits: 1_005, fractionDigits: 3).description == "1.005")
        #expect(Decimal(minorUnits: Int64.min, fractionDigits: 2).description == "-92233720368547758.08")
        #expect(Decimal(minorUnits: Int64.max, fractionDigits: 0).description == "9223372036854775807")
        #expect(Decimal(minorUnits: -1, fractionDigits: 4).description == "-0.0001")
    }
}
