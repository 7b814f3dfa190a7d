/// An ISO 4217 currency: its alphabetic code and how many minor-unit digits it has.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The three-letter ISO 4217 code, upper case (`USD`, `JPY`, `KWD`).
    public let code: String
    /// The ISO 4217 minor-unit exponent: 2 for USD (cents), 0 for JPY, 3 for KWD.
    public let minorUnits: Int

    /// The currency with this ISO 4217 code; throws `unknown_currency` for anything not in the table.
    public init(code: String) throws(CanteenError) {
        guard let minorUnits = Currency.iso4217[code] else {
            throw CanteenError(
                .invalid, code: .unknownCurrency,
                message: "'\(code)' is not an active ISO 4217 currency code",
                parameters: ["currency": code])
        }
        self.code = code
        self.minorUnits = minorUnits
    }

    /// Whether `code` is an active ISO 4217 code with defined minor units.
    public static func isKnown(_ code: String) -> Bool { iso4217[code] != nil }

    public var description: String { code }

    public static let usd = try! Currency(code: "USD")
    public static let eur = try! Currency(code: "EUR")
    public static let jpy = try! Currency(code: "JPY")
    public static let kwd = try! Currency(code: "KWD")
}
