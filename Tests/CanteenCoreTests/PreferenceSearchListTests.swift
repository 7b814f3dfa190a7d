import CanteenCore
import CanteenJSON
import Testing

@Suite("Preference search list: user → site → registered")
struct PreferenceSearchListTests {
    /// Which domains hold the key under test.
    struct Presence: CustomTestStringConvertible, Sendable {
        let user: Bool
        let site: Bool
        let registered: Bool

        var testDescription: String {
            "user \(user ? "has" : "lacks"), site \(site ? "has" : "lacks"), registered \(registered ? "has" : "lacks")"
        }

        static let all: [Presence] = [false, true].flatMap { user in
            [false, true].flatMap { site in [false, true].map { Presence(user: user, site: site, registered: $0) } }
        }

        /// The first domain holding the key, or nil.
        var expectedSource: PreferenceDomain? {
            user ? .user : site ? .site : registered ? .registered : nil
        }
    }

    @Test(
        "a key is answered by the first domain holding it, and by none when no domain has it",
        arguments: Presence.all)
    func fallThrough(_ presence: Presence) throws {
        let key = "app.theme"
        let list = PreferenceSearchList(
            user: PreferenceDocument(values: presence.user ? [key: "dark"] : ["other": 1], version: 3),
            site: presence.site ? [key: "light"] : [:],
            registered: presence.registered ? [key: "system"] : [:])
        let expectedValue: [PreferenceDomain: JSONValue] = [.user: "dark", .site: "light", .registered: "system"]

        let resolved = list.value(for: key)
        let merged = list.merged

        if let source = presence.expectedSource {
            let found = try #require(resolved)
            #expect(found.source == source)
            #expect(found.value == expectedValue[source])
            #expect(merged.sources[key] == source)
            #expect(merged.values[key] == expectedValue[source])
        } else {
            #expect(resolved == nil)
            #expect(merged.values[key] == nil)
            #expect(merged.sources[key] == nil)
        }
        #expect(merged.sources["other"] == (presence.user ? nil : .user))
        #expect(merged.version == 3)
    }

    @Test("with nothing set, defaultLocation is the registered \"nearest\"")
    func registeredDefault() {
        let list = PreferenceSearchList(user: PreferenceDocument(), site: [:])
        #expect(
            list.value(for: "defaultLocation")
                == ResolvedPreference(key: "defaultLocation", value: "nearest", source: .registered))
        #expect(list.defaultLocation == EffectiveDefaultLocation(location: .nearest, source: .registered))
        #expect(list.merged.values == ["defaultLocation": "nearest"])
        #expect(list.merged.version == 0)
    }

    @Test("the effective defaultLocation names the domain that answered it")
    func effectiveDefaultLocation() {
        let site = PreferenceSearchList(user: PreferenceDocument(), site: ["defaultLocation": "hq"])
        #expect(site.defaultLocation == EffectiveDefaultLocation(location: .cafe("hq"), source: .site))
        let user = PreferenceSearchList(
            user: PreferenceDocument(values: ["defaultLocation": "nearest"], version: 1),
            site: ["defaultLocation": "hq"])
        #expect(user.defaultLocation == EffectiveDefaultLocation(location: .nearest, source: .user))
    }

    @Test("a defaultLocation that is not a location is skipped for the next domain")
    func unusableDefaultLocation() {
        let list = PreferenceSearchList(
            user: PreferenceDocument(values: ["defaultLocation": 42], version: 1),
            site: ["defaultLocation": "hq"])
        #expect(list.defaultLocation == EffectiveDefaultLocation(location: .cafe("hq"), source: .site))
    }
}
