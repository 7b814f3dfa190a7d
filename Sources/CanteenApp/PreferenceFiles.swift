import CanteenCore
import CanteenJSON
import Foundation

/// A user's own preference document as a file: what `canteen prefs export` prints and
/// `canteen prefs import` reads.
public enum PreferenceFiles {
    /// The user's own values as canonical JSON (keys sorted, no white space) and a newline.
    public static func export(userID: String, from preferences: any PreferencesRepository) async throws -> Data {
        try UserID.validate(userID)
        var data = try await preferences.document(userID: userID).encoded()
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Replaces the user's document with the JSON object in `data`, validated whole; a file with
    /// any problem changes nothing. Returns the new document.
    @discardableResult
    public static func importDocument(
        _ data: Data, userID: String,
        into preferences: any PreferencesRepository
    ) async throws -> PreferenceDocument {
        try UserID.validate(userID)
        let value = try JSONValue.parse(data)
        guard let values = value.objectValue else {
            throw CanteenError(
                .invalid, code: .invalidPreferences,
                message: "a preference file holds a JSON object of keys to values, not \(value.typeName)")
        }
        return try await preferences.replace(userID: userID, values: values, condition: nil)
    }
}
