import CanteenCore
import CanteenJSON
import Foundation
import Testing

@Suite("Preference keys, values and limits")
struct PreferenceRulesTests {
    let cafes: Set<String> = ["testcafe"]

    func apply(_ changes: [String: PreferenceChange], to values: [String: JSONValue] = [:]) throws -> [String:
        JSONValue]
    {
        try PreferenceDocument(values: values, version: 1).applying(changes, cafeExists: { cafes.contains($0) })
    }

    /// The `CanteenError` that `body` throws (a test issue when it throws nothing or another error).
    func error(_ body: () throws -> Void) -> CanteenError? {
        #expect(throws: CanteenError.self) { try body() }
    }

    // MARK: - Known keys

    @Test("defaultLocation takes \"nearest\" or an existing café id")
    func defaultLocationValues() throws {
        #expect(try apply(["defaultLocation": .set("nearest")]) == ["defaultLocation": "nearest"])
        #expect(try apply(["defaultLocation": .set("testcafe")]) == ["defaultLocation": "testcafe"])
    }

    @Test(
        "defaultLocation naming an unknown café, or not a string, is invalid_preference naming the key",
        arguments: [JSONValue.string("nosuchcafe"), .string(""), .int(3), .array(["testcafe"]), .bool(true)])
    func defaultLocationRejected(_ value: JSONValue) {
        let error = error { _ = try apply(["defaultLocation": .set(value)]) }
        #expect(error?.code == .invalidPreference)
        #expect(error?.field == "defaultLocation")
        #expect(error?.kind == .invalid)
    }

    @Test("locale takes a BCP 47 tag", arguments: ["en", "en-US", "zh-Hans-CN", "es-419", "ja_JP"])
    func localeAccepted(_ tag: String) throws {
        #expect(try apply(["locale": .set(.string(tag))]) == ["locale": .string(tag)])
    }

    @Test(
        "locale rejects anything that is not a language tag",
        arguments: [
            JSONValue.string("english"), .string(""), .string("e"), .string("en--US"), .string("en-US-toolongsubtag"),
            .int(1),
        ])
    func localeRejected(_ value: JSONValue) {
        let error = error { _ = try apply(["locale": .set(value)]) }
        #expect(error?.code == .invalidPreference)
        #expect(error?.field == "locale")
    }

    @Test("other keys are the apps' own and take any JSON but null")
    func appKeys() throws {
        let value: JSONValue = ["nested": [1, .double(2.5), "x", ["deep": .null]], "empty": []]
        #expect(try apply(["app.layout": .set(value)]) == ["app.layout": value])
        let error = error { _ = try apply(["app.layout": .set(.null)]) }
        #expect(error?.code == .invalidPreference)
        #expect(error?.field == "app.layout")
    }

    @Test("one bad value fails the whole change set")
    func allOrNothing() {
        let error = error { _ = try apply(["a": .set(1), "defaultLocation": .set("gone"), "z": .set(2)]) }
        #expect(error?.field == "defaultLocation")
    }

    @Test("removing a key drops it; removing an absent key is harmless")
    func remove() throws {
        #expect(try apply(["a": .remove, "b": .remove], to: ["a": 1, "c": 3]) == ["c": 3])
    }

    // MARK: - Limits

    @Test("a key has 1 to 128 characters (characters, not bytes)")
    func keyLength() throws {
        let longest = String(repeating: "é", count: 128)
        #expect(try apply([longest: .set(1)]) == [longest: 1])
        let tooLong = error { _ = try apply([longest + "x": .set(1)]) }
        #expect(tooLong?.code == .preferenceKeyTooLong)
        #expect(tooLong?.field == longest + "x")
        #expect(error { _ = try apply(["": .set(1)]) }?.code == .invalidPreferenceKey)
    }

    @Test("a document holds 256 keys; the 257th is too_many_preferences")
    func keyCount() throws {
        let full = Dictionary(uniqueKeysWithValues: (0..<255).map { ("k\($0)", JSONValue.int(Int64($0))) })
        #expect(try apply(["last": .set(true)], to: full).count == 256)
        let over = error { _ = try apply(["last": .set(true), "more": .set(true)], to: full) }
        #expect(over?.code == .tooManyPreferences)
        #expect(over?.field == "last")
        // Replacing a value of a full document is not growth.
        let fullDocument = try apply(["last": .set(true)], to: full)
        #expect(try apply(["k0": .set("new")], to: fullDocument).count == 256)
    }

    @Test("a document is at most 65,536 bytes of canonical JSON")
    func documentSize() throws {
        // {"k":"…"} is the value's length plus 8 bytes.
        let atLimit = String(repeating: "x", count: PreferenceLimits.maxDocumentBytes - 8)
        let values = try apply(["k": .set(.string(atLimit))])
        #expect(JSONValue.object(values).encoded().count == 65_536)
        let over = error { _ = try apply(["k": .set(.string(atLimit + "x"))]) }
        #expect(over?.code == .preferenceTooLarge)
        #expect(over?.field == "k")
        #expect(over?.kind == .invalid)
    }

    @Test("the size counts escapes as encoded: 8,000 quotes take 16,000 bytes")
    func sizeCountsEscapes() throws {
        let quotes = String(repeating: "\"", count: 8_000)
        let values = try apply(["q": .set(.string(quotes))])
        #expect(JSONValue.object(values).encoded().count == 16_000 + 8)
    }

    @Test("an oversized change names its largest value, and removals alone are never refused")
    func blameAndShrink() throws {
        let half = String(repeating: "y", count: 40_000)
        let over = error {
            _ = try apply(["small": .set(1), "big": .set(.string(half)), "big2": .set(.string(half + "y"))])
        }
        #expect(over?.code == .preferenceTooLarge)
        #expect(over?.field == "big2")
        let crowded = Dictionary(uniqueKeysWithValues: (0..<300).map { ("k\($0)", JSONValue.int(1)) })
        #expect(try apply(["k0": .remove], to: crowded).count == 299)
    }

    @Test("a huge key is named in the error cut to 256 characters")
    func hugeKeyNotEchoed() {
        let huge = String(repeating: "k", count: 100_000)
        let error = error { _ = try apply([huge: .set(1)]) }
        #expect(error?.code == .preferenceKeyTooLong)
        #expect(error?.field == String(repeating: "k", count: 256) + "…")
    }

    @Test("a whole document is validated as a set of changes")
    func wholeDocument() throws {
        #expect(
            try PreferenceDocument.validated(["locale": "en-GB", "x": [1]], cafeExists: { _ in false }) == [
                "locale": "en-GB", "x": [1],
            ])
        #expect(throws: CanteenError.self) { try PreferenceDocument.validated([1, 2], cafeExists: { _ in true }) }
        #expect(throws: CanteenError.self) { try PreferenceDocument.validated(["x": .null], cafeExists: { _ in true }) }
    }

    // MARK: - Users and versions

    @Test("user ids are 1–128 of letters, digits and -_.@")
    func userIDs() {
        #expect(UserID.isValid("ana.lopez@example.com"))
        #expect(UserID.isValid("u_42-x"))
        #expect(UserID.isValid(String(repeating: "a", count: 128)))
        #expect(!UserID.isValid(String(repeating: "a", count: 129)))
        #expect(!UserID.isValid(""))
        #expect(!UserID.isValid("ana lopez"))
        #expect(!UserID.isValid("ana/../x"))
        #expect(!UserID.isValid("ñandú"))
    }
}
