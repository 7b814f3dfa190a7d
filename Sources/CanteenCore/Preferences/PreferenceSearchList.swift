import CanteenJSON

/// One key's value and the domain that answered it.
public struct ResolvedPreference: Hashable, Sendable {
    public var key: String
    public var value: JSONValue
    public var source: PreferenceDomain

    public init(key: String, value: JSONValue, source: PreferenceDomain) {
        self.key = key
        self.value = value
        self.source = source
    }
}

/// Every key a user sees, merged over the three domains, with the user document's version.
public struct MergedPreferences: Hashable, Sendable {
    public var values: [String: JSONValue]
    public var sources: [String: PreferenceDomain]
    /// The version of the user's own document (what a writer states it last saw).
    public var version: Int64

    public init(values: [String: JSONValue], sources: [String: PreferenceDomain], version: Int64) {
        self.values = values
        self.sources = sources
        self.version = version
    }
}

/// UserDefaults' search list: the user's values, then the site defaults, then the registered ones.
public struct PreferenceSearchList: Sendable {
    public var user: PreferenceDocument
    public var site: [String: JSONValue]
    public var registered: [String: JSONValue]

    public init(
        user: PreferenceDocument, site: [String: JSONValue],
        registered: [String: JSONValue] = RegisteredDefaults.values
    ) {
        self.user = user
        self.site = site
        self.registered = registered
    }

    /// The first domain holding `key`, or nil when none does.
    public func value(for key: String) -> ResolvedPreference? {
        for (domain, values) in domains {
            if let value = values[key] { return ResolvedPreference(key: key, value: value, source: domain) }
        }
        return nil
    }

    /// Every key of every domain, each answered by the first domain holding it.
    public var merged: MergedPreferences {
        var values: [String: JSONValue] = [:]
        var sources: [String: PreferenceDomain] = [:]
        for (domain, domainValues) in domains.reversed() {
            for (key, value) in domainValues {
                values[key] = value
                sources[key] = domain
            }
        }
        return MergedPreferences(values: values, sources: sources, version: user.version)
    }

    /// The effective `defaultLocation`; a value that is not a location (never stored by Canteen)
    /// is skipped, so the registered `nearest` always answers last.
    public var defaultLocation: EffectiveDefaultLocation {
        for (domain, values) in domains {
            if let value = values[PreferenceKey.defaultLocation], let location = DefaultLocation(value) {
                return EffectiveDefaultLocation(location: location, source: domain)
            }
        }
        return EffectiveDefaultLocation(location: .nearest, source: .registered)
    }

    private var domains: [(PreferenceDomain, [String: JSONValue])] {
        [(.user, user.values), (.site, site), (.registered, registered)]
    }
}
