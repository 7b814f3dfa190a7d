import CanteenJSON

/// Where a preference's value came from, in lookup order: the user's own values, the site
/// defaults ops set, then the defaults built into the product (UserDefaults' search list).
public enum PreferenceDomain: String, Sendable, Hashable, CaseIterable, Codable {
    case user
    case site
    case registered
}

/// The registration domain: defaults built into the product, answering when neither the user
/// nor the site has a value.
public enum RegisteredDefaults {
    /// Every built-in default, by key.
    public static let values: [String: JSONValue] = [
        PreferenceKey.defaultLocation: .string(DefaultLocation.nearestValue)
    ]
}
