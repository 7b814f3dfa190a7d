import CanteenJSON

/// Where preferences are kept: one document per user, and the site defaults.
///
/// Every write validates inside its transaction (café ids against the cafés stored at that
/// moment), checks its `VersionPrecondition` there too, and either applies whole or not at all.
public protocol PreferencesRepository: Sendable {
    /// The user's own document (version 0 and no values when the user has never written).
    func document(userID: String) async throws -> PreferenceDocument
    /// The search list of `userID`: their document, the site defaults, the registered defaults.
    func searchList(userID: String) async throws -> PreferenceSearchList
    /// Applies `changes` to the user's document in one transaction; returns the new document.
    /// Throws `version_mismatch` (412) when `condition` does not hold.
    func update(
        userID: String, changes: [String: PreferenceChange],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument
    /// Replaces the user's whole document with validated `values`; returns the new document.
    func replace(
        userID: String, values: [String: JSONValue],
        condition: VersionPrecondition?
    ) async throws -> PreferenceDocument

    /// The site defaults ops set, by key.
    func siteDefaults() async throws -> [String: JSONValue]
    /// Sets one site default (validated as a user value is); `audit` (when given, here and
    /// below) is recorded in the same transaction.
    func setSiteDefault(key: String, value: JSONValue, audit: AuditEntry?) async throws
    /// Removes one site default; throws `preference_not_found` when there is none.
    func removeSiteDefault(key: String, audit: AuditEntry?) async throws
}

extension PreferencesRepository {
    public func setSiteDefault(key: String, value: JSONValue) async throws {
        try await setSiteDefault(key: key, value: value, audit: nil)
    }

    public func removeSiteDefault(key: String) async throws { try await removeSiteDefault(key: key, audit: nil) }

    /// The value of `key` for `userID` and the domain that answered, or nil when no domain has it.
    public func preference(userID: String, key: String) async throws -> ResolvedPreference? {
        try await searchList(userID: userID).value(for: key)
    }

    /// Every key `userID` sees, merged, with sources and the user document's version.
    public func merged(userID: String) async throws -> MergedPreferences {
        try await searchList(userID: userID).merged
    }

    /// The user's effective `defaultLocation` ("nearest" or a café id) and the domain that
    /// answered; the café named may have been deleted since it was chosen.
    public func defaultLocation(userID: String) async throws -> EffectiveDefaultLocation {
        try await searchList(userID: userID).defaultLocation
    }
}
