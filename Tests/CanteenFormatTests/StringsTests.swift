import CanteenCore
import Foundation
import Testing

@testable import CanteenFormat

@Suite("Locales/ strings")
struct StringsTests {
    /// The repository's `Locales/` folder, found from this file's path.
    static let localesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Locales")

    static func catalog() throws -> Strings { try Strings(directory: localesFolder) }

    /// Every error code the API returns (issue 3).
    static let apiErrorCodes = """
        malformed_json missing_field invalid_type unknown_field out_of_range invalid_field unknown_currency \
        unknown_time_zone duplicate_id min_exceeds_max missing_translation unknown_reference \
        day_part_outside_hours validation_failed unauthenticated forbidden not_found route_not_found \
        cafe_not_found item_not_found token_not_found order_not_found ticket_not_found body_too_large \
        precondition_failed method_not_allowed unsupported_media_type item_unavailable pickup_window_full \
        pickup_window_unavailable cafe_closed too_many_lines idempotency_key_missing idempotency_key_invalid \
        idempotency_key_reused idempotency_key_in_use invalid_transition order_not_cancellable invalid_cursor \
        invalid_query preference_too_large too_many_preferences preference_key_too_long invalid_preference \
        version_mismatch internal_error amount_overflow currency_mismatch
        """.split(separator: " ").map(String.init)

    // MARK: - The files

    @Test("Locales/ has at least en, ja, fr, es, zh-Hans and ar")
    func languages() throws {
        let languages = Set(try Self.catalog().languages)
        #expect(languages.isSuperset(of: ["en", "ja", "fr", "es", "zh-Hans", "ar"]))
    }

    @Test("every file has exactly the keys of en.json")
    func keyParity() throws {
        let tables = try Self.catalog().tables
        let english = Set(try #require(tables["en"]).keys)
        for (language, table) in tables {
            let keys = Set(table.keys)
            #expect(english.subtracting(keys).isEmpty, "\(language).json misses \(english.subtracting(keys).sorted())")
            #expect(keys.subtracting(english).isEmpty, "\(language).json has keys en lacks: \(keys.subtracting(english).sorted())")
        }
    }

    @Test("every string has the placeholders of its en string")
    func placeholderParity() throws {
        let tables = try Self.catalog().tables
        let english = try #require(tables["en"])
        for (language, table) in tables {
            for (key, text) in table {
                guard let base = english[key] else { continue }
                #expect(Strings.placeholders(in: text) == Strings.placeholders(in: base), "\(language).json \(key)")
            }
        }
    }

    @Test("every string is translated: non-empty, and differs from en where it is a sentence")
    func translated() throws {
        let tables = try Self.catalog().tables
        let english = try #require(tables["en"])
        for (language, table) in tables where language != "en" {
            for (key, text) in table {
                #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(language).json \(key)")
                if key.hasPrefix("error."), let base = english[key] {
                    #expect(text != base, "\(language).json \(key) is still English")
                }
            }
        }
    }

    @Test("every API error code, ticket state and label has an en string")
    func coverage() throws {
        let english = try #require(try Self.catalog().tables["en"])
        for code in Self.apiErrorCodes { #expect(english["error.\(code)"] != nil, "error.\(code)") }
        for state in ["new", "preparing", "ready", "picked_up", "cancelled", "placed"] {
            #expect(english["state.\(state)"] != nil, "state.\(state)")
        }
        for label in ["sold_out", "pickup", "total", "subtotal", "tax", "available", "asap"] {
            #expect(english["label.\(label)"] != nil, "label.\(label)")
        }
    }

    // MARK: - Lookup

    @Test("a string is read in the asked language with its placeholders filled")
    func lookup() throws {
        let strings = try Self.catalog()
        #expect(strings.string("state.ready", language: "ja") == "受け取り可能")
        #expect(strings.string("error.order_not_found", language: "fr", parameters: ["id": "A-17"])
            == "Aucune commande avec l’identifiant A-17.")
    }

    @Test("an error's message uses its code, parameters and field")
    func errorMessage() throws {
        let strings = try Self.catalog()
        let missing = CanteenError(.invalid, code: "missing_field", message: "is required", field: "items[0].price")
        #expect(strings.message(for: missing, language: "es") == "El campo items[0].price es obligatorio.")
        let currency = CanteenError(.invalid, code: "unknown_currency", message: "", parameters: ["currency": "XYZ"])
        #expect(strings.message(for: currency, language: "en") == "XYZ is not a known currency code.")
    }

    @Test("a missing string falls back to en, never to the raw key")
    func fallback() {
        let strings = Strings(tables: [
            "en": ["label.total": "Total", "error.unknown": "Something went wrong."],
            "ja": [:],
        ])
        #expect(strings.string("label.total", language: "ja") == "Total")
        #expect(strings.string("label.total", language: "xx") == "Total")
        #expect(strings.string("label.nothing", language: "ja") == "Something went wrong.")
        #expect(Strings(tables: ["en": [:]]).string("label.nothing", language: "en") == Strings.genericMessage)
    }

    @Test("placeholders without values show an ellipsis; stray braces stay")
    func placeholders() {
        #expect(Strings.fill("No order {id}.", with: [:]) == "No order ….")
        #expect(Strings.fill("{a}{b} {c", with: ["a": "1", "b": "2"]) == "12 {c")
        #expect(Strings.fill("{not a name} {x}", with: ["x": "y"]) == "{not a name} y")
        #expect(Strings.placeholders(in: "{from} to {to} {bad name} {") == ["from", "to"])
    }

    @Test("a folder without en.json or with a malformed file is refused")
    func badFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locales-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"a": "b"}"#.utf8).write(to: folder.appendingPathComponent("fr.json"))
        #expect(throws: CanteenError.self) { try Strings(directory: folder) }
        try Data(#"{"a": 1}"#.utf8).write(to: folder.appendingPathComponent("en.json"))
        #expect(throws: CanteenError.self) { try Strings(directory: folder) }
        try Data(#"{"a": "b"}"#.utf8).write(to: folder.appendingPathComponent("en.json"))
        #expect(try Strings(directory: folder).languages == ["en", "fr"])
    }
}
