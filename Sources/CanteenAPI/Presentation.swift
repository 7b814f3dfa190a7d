import CanteenCore
import CanteenFormat
import Foundation
import HTTPTypes
import Hummingbird

/// Chooses how responses are rendered for their reader: negotiates `Accept-Language` against
/// `Locales/` and the café's default locale.
public struct Presenter: Sendable {
    /// The UI strings of `Locales/`.
    public let strings: Strings
    private let negotiator: LocaleNegotiator
    /// The application's formatters (their caches are bounded and shared by every request).
    let prices: PriceFormatter
    let windows: PickupWindowFormatter

    public init(
        strings: Strings, prices: PriceFormatter = PriceFormatter(),
        windows: PickupWindowFormatter = PickupWindowFormatter()
    ) {
        self.strings = strings
        self.prices = prices
        self.windows = windows
        negotiator = LocaleNegotiator(strings: strings)
    }

    /// The locale used for responses that belong to no café (errors before one is known).
    static let neutralLocale = "en_US"

    /// The presentation of a response to `request` about `cafe` (nil for none).
    func presentation(for request: Request, cafe: Cafe?) -> Presentation {
        presentation(acceptLanguage: request.headers.value(of: .acceptLanguage), cafe: cafe)
    }

    func presentation(acceptLanguage: String?, cafe: Cafe?) -> Presentation {
        let negotiation = negotiator.negotiate(
            acceptLanguage: acceptLanguage,
            defaultLocale: cafe?.defaultLocale ?? Self.neutralLocale)
        var textLanguages = negotiation.readerTags
        textLanguages.append(negotiation.language)
        textLanguages += cafe?.languages ?? []
        return Presentation(
            locale: negotiation.formattingLocale, language: negotiation.language,
            contentLanguage: negotiation.contentLanguage, textLanguages: textLanguages,
            strings: strings, prices: prices, windows: windows)
    }
}

/// How one response is rendered: the reader's formatting locale, strings language and the
/// order in which menu texts are looked up. Currency and time zone always come from the café.
struct Presentation: Sendable {
    /// Number and date conventions: the reader's (`es-UY`), never the café's currency choice.
    let locale: Locale
    /// The `Locales/` language of UI strings and error messages.
    let language: String
    let contentLanguage: String
    /// Languages tried for menu texts, reader's first, then the café's.
    let textLanguages: [String]
    let strings: Strings
    let prices: PriceFormatter
    let windows: PickupWindowFormatter

    func text(_ text: LocalizedText) -> String { text.resolved(for: textLanguages) }

    /// Minor units with the currency code and their rendering for the reader.
    func money(_ minorUnits: Int64, _ currency: Currency) -> MoneyDTO {
        MoneyDTO(
            amount: minorUnits, currency: currency.code,
            formatted: prices.format(Money(minorUnits: minorUnits, currency: currency), locale: locale))
    }

    /// A pickup window's label in the reader's locale and the café's time zone.
    func windowLabel(_ window: PickupWindow, cafe: Cafe) -> String {
        windows.label(
            start: window.start, end: window.end, timeZone: cafe.timeZoneValue,
            locale: locale)
    }

    /// A UI string (`state.ready`, `label.sold_out`) in the reader's language.
    func label(_ key: String) -> String { strings.string(key, language: language) }

    /// The message of an error in the reader's language. English keeps the error's own, more
    /// specific message; other languages use the `Locales/` template for its code.
    func message(for error: CanteenError) -> String {
        language == "en" ? error.message : strings.message(for: error, language: language)
    }

    /// What distinguishes this rendering in a validator (`ETag`).
    var variant: String { "\(language)-\(locale.identifier)" }

    /// `Content-Language` and `Vary: Accept-Language`.
    var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentLanguage] = contentLanguage
        headers[.vary] = "Accept-Language"
        return headers
    }
}

/// Money on the wire: integer minor units, the ISO 4217 code and the reader's rendering.
struct MoneyDTO: Encodable, Hashable {
    let amount: Int64
    let currency: String
    let formatted: String
}
