import CanteenCore
import Foundation

/// A money value as the API shows it: `{"amount": 450, "currency": "USD", "formatted": "$4.50"}`.
public struct FormattedMoney: Hashable, Sendable, Codable {
    /// The amount in minor units of `currency`.
    public var amount: Int64
    /// The ISO 4217 code.
    public var currency: String
    /// The amount rendered for the reader's locale.
    public var formatted: String

    public init(amount: Int64, currency: String, formatted: String) {
        self.amount = amount
        self.currency = currency
        self.formatted = formatted
    }
}

extension PriceFormatter {
    /// `money` with its rendering for `locale`, ready to encode in a response.
    public func formatted(_ money: Money, locale: Locale) -> FormattedMoney {
        FormattedMoney(
            amount: money.minorUnits, currency: money.currency.code,
            formatted: format(money, locale: locale))
    }
}
