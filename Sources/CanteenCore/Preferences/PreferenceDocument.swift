import CanteenJSON
import Foundation

/// One user's own preference values (the user domain) and the version that moves on every write.
public struct PreferenceDocument: Hashable, Sendable {
    public var values: [String: JSONValue]
    /// 0 while the user has never written; then 1, 2, … one step per write.
    public var version: Int64

    public init(values: [String: JSONValue] = [:], version: Int64 = 0) {
        self.values = values
        self.version = version
    }

    /// The values as canonical JSON (sorted keys): what is stored and what `export` prints.
    public func encoded() -> Data { JSONValue.object(values).encoded() }
}

/// One change to a preference document.
public enum PreferenceChange: Hashable, Sendable {
    /// Store this value under the key (replacing any earlier one).
    case set(JSONValue)
    /// Remove the key, so lookups fall through to the site and registered defaults.
    case remove
}

extension PreferenceDocument {
    // MARK: - Validated changes

    /// The values after `changes`, every set value validated and the limits checked; throws the
    /// first problem (naming its key) and changes nothing.
    public func applying(
        _ changes: [String: PreferenceChange],
        cafeExists: (String) throws -> Bool
    ) throws -> [String: JSONValue] {
        var values = self.values
        var added: [String] = []
        var replaced: [String] = []
        for key in changes.keys.sorted() {
            switch changes[key] {
            case .set(let value):
                try PreferenceKey.validate(value, for: key, cafeExists: cafeExists)
                if values.updateValue(value, forKey: key) == nil { added.append(key) } else { replaced.append(key) }
            case .remove:
                try PreferenceKey.validate(key)
                values.removeValue(forKey: key)
            case nil:
                break
            }
        }
        // Removals alone never push a document over a limit, nor keep one from shrinking.
        if !(added + replaced).isEmpty {
            try PreferenceLimits.check(values, blame: added + replaced)
        }
        return values
    }

    /// Validates a whole document (what `import` and a site-wide replacement take): an object of
    /// keys to non-null values within the limits.
    public static func validated(
        _ document: JSONValue,
        cafeExists: (String) throws -> Bool
    ) throws -> [String: JSONValue] {
        guard let object = document.objectValue else {
            throw CanteenError(
                .invalid, code: .invalidPreferences,
                message: "a preference document is a JSON object of keys to values, not \(document.typeName)")
        }
        return try PreferenceDocument().applying(object.mapValues { .set($0) }, cafeExists: cafeExists)
    }
}
