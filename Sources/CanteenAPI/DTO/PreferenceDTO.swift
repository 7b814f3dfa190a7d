import CanteenCore
import CanteenJSON
import Foundation

/// Every key a user sees: `{"values", "sources", "version"}`.
struct MergedPreferencesDTO: Encodable {
    let values: [String: JSONValue]
    let sources: [String: PreferenceDomain]
    let version: Int64

    init(_ merged: MergedPreferences) {
        values = merged.values
        sources = merged.sources
        version = merged.version
    }
}

/// One key's value and the domain that answered: `{"key", "value", "source"}`.
struct PreferenceDTO: Encodable {
    let key: String
    let value: JSONValue
    let source: PreferenceDomain

    init(_ resolved: ResolvedPreference) {
        key = resolved.key
        value = resolved.value
        source = resolved.source
    }
}

/// The site defaults: `{"values"}`.
struct SiteDefaultsDTO: Encodable {
    let values: [String: JSONValue]
}
