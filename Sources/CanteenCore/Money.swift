/// An amount of money: integer minor units of one ISO 4217 currency. Never a floating-point value.
public struct Money: Hashable, Sendable, CustomStringConvertible {
    /// The amount in minor units (cents for USD, yen for JPY, fils for KWD).
    public let minorUnits: Int64
    /// The currency the amount is in.
    public let currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    public var description: String { "\(minorUnits) \(currency.code) minor units" }

    /// The sum, or `amount_overflow` when it does not fit in Int64 or the currencies differ.
    public func adding(_ other: Money) throws(CanteenError) -> Money {
        guard other.currency == currency else {
            throw CanteenError(
                .invalid, code: .currencyMismatch,
                message: "cannot add \(other.currency.code) to \(currency.code)")
        }
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .amountOverflow }
        return Money(minorUnits: sum, currency: currency)
    }

    /// The amount times `factor`, or `amount_overflow` when it does not fit in Int64.
    public func multiplied(by factor: Int64) throws(CanteenError) -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .amountOverflow }
        return Money(minorUnits: product, currency: currency)
    }
}

extension CanteenError {
    static let amountOverflow = CanteenError(
        .invalid, code: .amountOverflow, message: "the amount is too large to represent")
}
