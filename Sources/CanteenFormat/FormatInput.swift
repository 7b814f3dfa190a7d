import CanteenCore
import CanteenJSON
import Foundation

/// Checks the text inputs of formatting (command-line arguments, query parameters) and turns
/// them into values, or into a `CanteenError` with a stable code.
public enum FormatInput {
    /// A locale from a well-formed identifier (`hi_IN`, `ar-EG-u-nu-latn`); `invalid_locale` otherwise.
    public static func locale(_ identifier: String) throws(CanteenError) -> Locale {
        guard LanguageTag.isWellFormed(identifier) else {
            throw CanteenError(
                .invalid, code: .invalidLocale,
                message: "'\(identifier)' is not a locale identifier such as en_US or ar-EG-u-nu-latn",
                parameters: ["locale": identifier])
        }
        return Locale(identifier: identifier)
    }

    /// A time zone as a café may have one (`America/Chicago`, `Asia/Kolkata`, `UTC`);
    /// `unknown_time_zone` otherwise, including for abbreviations and offsets such as `EST` or `GMT+5`.
    public static func timeZone(_ identifier: String) throws(CanteenError) -> TimeZone {
        try CafeTimeZone(identifier).zone
    }

    /// An RFC 3339 timestamp (`2026-03-08T01:45:00-06:00`, fractional seconds allowed);
    /// `invalid_timestamp` otherwise.
    public static func instant(_ text: String) throws(CanteenError) -> Date {
        if let date = RFC3339.parse(text) { return date }
        throw CanteenError(
            .invalid, code: .invalidTimestamp,
            message: "'\(text)' is not an RFC 3339 timestamp such as 2026-03-08T01:45:00-06:00",
            parameters: ["value": text])
    }

    /// An amount in minor units (`-450`, `123456789`); `invalid_amount` when it is not a whole
    /// number that fits in 64 bits.
    public static func minorUnits(_ text: String) throws(CanteenError) -> Int64 {
        guard let value = Int64(text) else {
            throw CanteenError(
                .invalid, code: .invalidAmount,
                message: "'\(text)' is not a whole number of minor units between \(Int64.min) and \(Int64.max)",
                parameters: ["value": text])
        }
        return value
    }
}
