import CanteenJSON

/// Preference keys: the shape every key must have, and the keys Canteen itself understands
/// (their values are validated; every other key belongs to the apps and is stored as given).
public enum PreferenceKey {
    /// `"nearest"` or the id of an existing café.
    public static let defaultLocation = "defaultLocation"
    /// A BCP 47 language tag such as `en-US` or `zh-Hans`.
    public static let locale = "locale"

    /// The longest key, in characters.
    public static let maxLength = 128

    // MARK: - Keys

    /// Throws `invalid_preference_key` for an empty key and `preference_key_too_long` above 128 characters.
    public static func validate(_ key: String) throws(CanteenError) {
        if key.isEmpty {
            throw CanteenError(
                .invalid, code: .invalidPreferenceKey, message: "a preference key must not be empty",
                field: key)
        }
        if key.count > maxLength || key.utf8.count > maxLength * TextLimits.bytesPerCharacter {
            throw CanteenError(
                .invalid, code: .preferenceKeyTooLong,
                message:
                    "a preference key has at most \(maxLength) characters and \(maxLength * TextLimits.bytesPerCharacter) bytes; this one has \(key.count) characters, \(key.utf8.count) bytes",
                field: shown(key), parameters: ["limit": "\(maxLength)"])
        }
        if let control = TextLimits.forbiddenControl(in: key, kind: .name) {
            throw CanteenError(
                .invalid, code: .invalidPreferenceKey,
                message:
                    "a preference key holds no control characters; this one has U+\(String(control.value, radix: 16, uppercase: true))",
                field: shown(key))
        }
    }

    // MARK: - Values

    /// Checks a value about to be stored under `key`: null is refused (remove the key instead),
    /// known keys must hold what they mean. `cafeExists` answers whether a café id is known.
    /// Throws `invalid_preference` naming the key.
    public static func validate(
        _ value: JSONValue, for key: String,
        cafeExists: (String) throws -> Bool
    ) throws {
        try validate(key)
        if value == .null {
            throw invalid(key, "null is not a preference value; remove the key instead")
        }
        if let place = nul(in: value, at: "the value") {
            throw invalid(key, "a preference value holds no NUL character (U+0000); \(place) has one")
        }
        switch key {
        case defaultLocation:
            guard let location = DefaultLocation(value) else {
                throw invalid(key, "expected \"nearest\" or a café id, found \(value.typeName)")
            }
            if case .cafe(let id) = location, try !cafeExists(id) {
                throw invalid(key, "there is no café with id '\(id)'", parameters: ["cafe": id])
            }
        case locale:
            guard let tag = value.stringValue, LanguageTag.isWellFormed(tag) else {
                let found = value.stringValue.map { "'\($0)'" } ?? value.typeName
                throw invalid(key, "expected a BCP 47 language tag such as \"en-US\" or \"zh-Hans\", found \(found)")
            }
        default:
            break
        }
    }

    /// Where `value` holds a NUL (in a string or a member name), or nil. PostgreSQL cannot store
    /// one, and no app means one.
    static func nul(in value: JSONValue, at place: String) -> String? {
        switch value {
        case .string(let text):
            return text.utf8.contains(0) ? place : nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = nul(in: element, at: "\(place)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for name in members.keys.sorted() {
                if name.utf8.contains(0) { return "a member name of \(place)" }
                if let found = nul(in: members[name]!, at: "\(place).\(name)") { return found }
            }
            return nil
        case .null, .bool, .int, .double:
            return nil
        }
    }

    /// 404 `preference_not_found` naming the key.
    public static func notFound(_ key: String) -> CanteenError {
        CanteenError(
            .notFound, code: .preferenceNotFound, message: "no preference '\(key)'", field: key,
            parameters: ["key": key])
    }

    /// The key as an error names it: cut after 256 characters or 512 bytes, so a huge key is not
    /// echoed whole.
    static func shown(_ key: String) -> String {
        let byteLimit = maxLength * TextLimits.bytesPerCharacter
        guard key.count > 2 * maxLength || key.utf8.count > byteLimit else { return key }
        var shown = String.UnicodeScalarView()
        var bytes = 0
        for scalar in key.unicodeScalars.prefix(2 * maxLength) {
            bytes += String(scalar).utf8.count
            if bytes > byteLimit { break }
            shown.append(scalar)
        }
        return String(shown) + "…"
    }

    private static func invalid(_ key: String, _ message: String, parameters: [String: String] = [:]) -> CanteenError {
        CanteenError(
            .invalid, code: .invalidPreference, message: message, field: key,
            parameters: parameters)
    }
}
