import Foundation

extension Decimal {
    /// The exact value of `minorUnits` × 10^-`fractionDigits`, built from sign, exponent and
    /// significand (never through `Double`); `Int64.min` is exact too, through its magnitude.
    init(minorUnits: Int64, fractionDigits: Int) {
        self.init(
            sign: minorUnits < 0 ? .minus : .plus,
            exponent: -fractionDigits,
            significand: Decimal(minorUnits.magnitude))
    }
}
