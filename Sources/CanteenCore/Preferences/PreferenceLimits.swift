import Foundation

/// The size limits of one preference document (a user's, or the site defaults).
public enum PreferenceLimits {
    /// The most keys a document holds.
    public static let maxKeys = 256
    /// The most bytes of a document's canonical JSON encoding (64 KiB).
    public static let maxDocumentBytes = 64 * 1024

    /// Throws `too_many_preferences` or `preference_too_large` for a document over a limit,
    /// naming the first of `blame` (the keys just written) as the field.
    public static func check(_ values: [String: JSONValue], blame: [String]) throws(CanteenError) {
        let field = blame.first
        if values.count > maxKeys {
            throw CanteenError(.invalid, code: "too_many_preferences",
                               message: "a preference document holds at most \(maxKeys) keys; this one would hold \(values.count)",
                               field: field, parameters: ["limit": "\(maxKeys)"])
        }
        let size = JSONValue.object(values).encoded().count
        if size > maxDocumentBytes {
            throw CanteenError(.invalid, code: "preference_too_large",
                               message: "a preference document is at most \(maxDocumentBytes) bytes of JSON; this one would be \(size)",
                               field: field, parameters: ["limit": "\(maxDocumentBytes)", "size": "\(size)"])
        }
    }
}
