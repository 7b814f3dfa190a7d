import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Preference export and import (canteen prefs)")
struct PreferenceFilesTests {
    static func sample() throws -> Data {
        let url = try #require(
            Bundle.module.url(
                forResource: "preferences-sample", withExtension: "json",
                subdirectory: "Resources"))
        return try Data(contentsOf: url)
    }

    @Test("export → import → export round-trips byte for byte: unicode, nesting, big integers, 0.1, empty arrays")
    func roundTrip() async throws {
        let environment = try await TestEnvironment.make()
        let preferences = environment.stores.preferences
        let sample = try Self.sample()
        try await PreferenceFiles.importDocument(sample, userID: "ana", into: preferences)

        let exported = try await PreferenceFiles.export(userID: "ana", from: preferences)
        try await PreferenceFiles.importDocument(exported, userID: "bo", into: preferences)
        let reexported = try await PreferenceFiles.export(userID: "bo", from: preferences)

        #expect(exported == reexported)
        let parsed = try JSONValue.parse(exported)
        #expect(parsed == (try JSONValue.parse(sample)))
        #expect(parsed["app.bigIntegers"] == [.int(.max), .int(.min), 0])
        #expect(parsed["app.doubles", 0] == .double(0.1))
        #expect(parsed["app.greeting"] == "Grüß Gott, 東京 ☕️ 👩‍👩‍👧")
        #expect(parsed["app.nested", "list"] == [])
        #expect(String(decoding: exported, as: UTF8.self).contains("0.1,"))
        #expect(exported.last == UInt8(ascii: "\n"))
    }

    @Test("export leaves out site and registered defaults")
    func exportOwnValuesOnly() async throws {
        let environment = try await TestEnvironment.make()
        try await environment.stores.preferences.setSiteDefault(key: "locale", value: "en-US")
        let exported = try await PreferenceFiles.export(userID: "ana", from: environment.stores.preferences)
        #expect(String(decoding: exported, as: UTF8.self) == "{}\n")
    }

    @Test(
        "an import with any problem changes nothing",
        arguments: [
            "{\"defaultLocation\": \"nosuchcafe\", \"a\": 1}", "[1]", "{\"a\": ", "{\"locale\": \"??\"}",
            "{\"a\": null}", "{\"a\": \"nul \\u0000\"}",
        ])
    func badImport(_ file: String) async throws {
        let environment = try await TestEnvironment.make()
        let preferences = environment.stores.preferences
        _ = try await preferences.update(userID: "ana", changes: ["keep": .set(true)], condition: nil)
        await #expect(throws: CanteenError.self) {
            try await PreferenceFiles.importDocument(Data(file.utf8), userID: "ana", into: preferences)
        }
        #expect(try await preferences.document(userID: "ana") == PreferenceDocument(values: ["keep": true], version: 1))
    }

    @Test("import replaces the whole document rather than merging")
    func importReplaces() async throws {
        let environment = try await TestEnvironment.make()
        let preferences = environment.stores.preferences
        _ = try await preferences.update(userID: "ana", changes: ["old": .set(1)], condition: nil)
        try await PreferenceFiles.importDocument(Data("{\"new\": 2}".utf8), userID: "ana", into: preferences)
        #expect(try await preferences.document(userID: "ana").values == ["new": 2])
    }

    @Test("a bad user id is refused before anything is read or written")
    func badUser() async throws {
        let environment = try await TestEnvironment.make()
        await #expect(throws: CanteenError.self) {
            _ = try await PreferenceFiles.export(userID: "no spaces", from: environment.stores.preferences)
        }
    }
}
