import CanteenCore
import Foundation
import Testing

@testable import CanteenFormat

@Suite("Choosing the formatting locale and the strings language")
struct LocaleNegotiatorTests {
    let negotiator = LocaleNegotiator(availableLanguages: ["en", "ja", "fr", "es", "zh-Hans", "ar"])

    func negotiate(_ header: String?, cafe: String = "en_US") -> LocaleNegotiation {
        negotiator.negotiate(acceptLanguage: header, defaultLocale: cafe)
    }

    @Test("es-UY formats as es-UY and reads the es strings")
    func regionalSpanish() {
        let result = negotiate("es-UY, en;q=0.5")
        #expect(result.formattingLocale.identifier == "es-UY")
        #expect(result.language == "es")
        #expect(result.contentLanguage == "es")
    }

    @Test("the reader's acceptable tags come back most wanted first, without * or refused ones")
    func readerTags() {
        let negotiation = negotiator.negotiate(
            acceptLanguage: "en;q=0.2, fr-CA, *;q=0.5, de;q=0", defaultLocale: "ja_JP")
        #expect(negotiation.readerTags == ["fr-CA", "en"])
        #expect(negotiator.negotiate(acceptLanguage: nil, defaultLocale: "ja_JP").readerTags.isEmpty)
    }

    @Test("Chinese tags reach zh-Hans through their likely script", arguments: ["zh-CN", "zh-Hans-CN", "zh", "zh-SG"])
    func simplifiedChinese(header: String) {
        #expect(negotiate(header).language == "zh-Hans")
    }

    @Test("traditional Chinese does not get simplified strings")
    func traditionalChinese() {
        #expect(negotiate("zh-TW").language == "en")
        #expect(negotiate("zh-TW, ja;q=0.5").language == "ja")
    }

    @Test("BCP 47 extensions drive formatting and are ignored for strings")
    func extensions() {
        let result = negotiate("ar-EG-u-nu-latn")
        #expect(result.language == "ar")
        let price = PriceFormatter().format(.init(minorUnits: 450, currency: .usd), locale: result.formattingLocale)
        #expect(price == "\u{200F}4.50\u{00A0}US$")
    }

    @Test("no header gives the café's default locale and its language")
    func noHeader() {
        let result = negotiate(nil, cafe: "ja_JP")
        #expect(result.formattingLocale.identifier == "ja-JP" || result.formattingLocale.identifier == "ja_JP")
        #expect(result.language == "ja")
        #expect(negotiate("", cafe: "fr_FR").language == "fr")
    }

    @Test("an unknown language falls back to en strings and the café's formatting")
    func unknown() {
        let result = negotiate("xx-YY", cafe: "de_CH")
        #expect(result.language == "en")
        #expect(result.formattingLocale.identifier == "de-CH")
    }

    @Test("a language ICU knows but Locales/ lacks formats in it and reads the next file")
    func formattingWithoutStrings() {
        let result = negotiate("de-DE, fr;q=0.7")
        #expect(result.formattingLocale.identifier == "de-DE")
        #expect(result.language == "fr")
    }

    @Test("q=0 refuses a language even when it would match")
    func refused() {
        #expect(negotiate("es-UY, es;q=0, fr;q=0.5").language == "fr")
        #expect(negotiate("*, en;q=0", cafe: "en_US").language == "en")  // nothing else acceptable: fallback
    }

    @Test("* stands for the café's language and locale")
    func wildcard() {
        let result = negotiate("xx, *;q=0.5", cafe: "ja_JP")
        #expect(result.language == "ja")
        #expect(result.formattingLocale.identifier == "ja-JP")
    }

    @Test("quality order wins over header order")
    func quality() {
        #expect(negotiate("fr;q=0.4, ja;q=0.9").language == "ja")
    }

    @Test(
        "garbage headers fall back without crashing",
        arguments: [";;;", "\u{0000}", "q=0.5", String(repeating: "x", count: 9000)])
    func garbage(header: String) {
        #expect(negotiate(header, cafe: "es_UY").language == "es")
    }
}
