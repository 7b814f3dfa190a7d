import CanteenJSON
import Foundation

/// The size limits of one preference document (a user's, or the site defaults).
public enum PreferenceLimits {
    /// The most keys a document holds.
    public static let maxKeys = 256
    /// The most bytes of a document's canonical JSON encoding (64 KiB).
    public static let maxDocumentBytes = 64 * 1024

    /// Throws `too_many_preferences` or `preference_too_large` for a document over a limit,
    /// naming one of `blame` (the keys just written, new ones first) as the field: the first for
    /// too many keys, the one with the largest value for too many bytes.
    public static func check(_ values: [String: JSONValue], blame: [String]) throws(CanteenError) {
        if values.count > maxKeys {
            let field = blame.first
            throw CanteenError(
                .invalid, code: .tooManyPreferences,
                message: "a preference document holds at most \(maxKeys) keys; this one would hold \(values.count)",
                field: field, parameters: ["limit": "\(maxKeys)"])
        }
        let size = JSONValue.object(values).encoded().count
        if size > maxDocumentBytes {
            let field = blame.max { (values[$0]?.encoded().count ?? 0) < (values[$1]?.encoded().count ?? 0) }
            throw CanteenError(
                .invalid, code: .preferenceTooLarge,
                message:
                    "a preference document is at most \(maxDocumentBytes) bytes of JSON; this one would be \(size)",
                field: field, parameters: ["limit": "\(maxDocumentBytes)", "size": "\(size)"])
        }
    }
}
