import CanteenCore
import Foundation

/// How one response is rendered for its reader: which languages texts come in.
struct Presentation: Sendable {
    /// Text languages in order of preference (the reader's, then the café's own).
    var languages: [String]

    func text(_ text: LocalizedText) -> String { text.resolved(for: languages) }

    func money(_ minorUnits: Int64, _ currency: String) -> MoneyDTO {
        MoneyDTO(amount: minorUnits, currency: currency)
    }

    /// A label for a pickup window in the reader's locale (nil until formatting is wired).
    func windowLabel(_ window: PickupWindow, cafe: Cafe) -> String? { nil }

    /// A UI string by key in the reader's language (nil until the strings catalog is wired).
    func label(_ key: String) -> String? { nil }

    /// The reader's languages followed by the café's own.
    func forCafe(_ cafe: Cafe) -> Presentation {
        Presentation(languages: languages + cafe.languages)
    }
}

/// Money on the wire: integer minor units and the ISO 4217 code.
struct MoneyDTO: Encodable, Hashable {
    let amount: Int64
    let currency: String
}
