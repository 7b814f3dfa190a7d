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
            #expect(
                keys.subtracting(english).isEmpty,
                "\(language).json has keys en lacks: \(keys.subtracting(english).sorted())")
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

    @Test("every error code has a string in every language", arguments: ErrorCode.allCases)
    func errorCodes(code: ErrorCode) throws {
        for (language, table) in try Self.catalog().tables {
            #expect(table["error.\(code.rawValue)"] != nil, "\(language).json has no error.\(code.rawValue)")
        }
    }

    @Test("every error string names a code Canteen gives (or is the generic fallback)")
    func noStaleErrorStrings() throws {
        let codes = Set(ErrorCode.allCases.map { "error.\($0.rawValue)" } + ["error.unknown"])
        let english = try #require(try Self.catalog().tables["en"])
        #expect(english.keys.filter { $0.hasPrefix("error.") && !codes.contains($0) }.sorted() == [])
    }

    @Test("every ticket state and label has an en string")
    func coverage() throws {
        let english = try #require(try Self.catalog().tables["en"])
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
        #expect(
            strings.string("error.order_not_found", language: "fr", parameters: ["id": "A-17"])
                == "Aucune commande avec l’identifiant A-17.")
    }

    @Test("an error's message uses its code, parameters and field")
    func errorMessage() throws {
        let strings = try Self.catalog()
        let missing = CanteenError(.invalid, code: .missingField, message: "is required", field: "items[0].price")
        #expect(strings.message(for: missing, language: "es") == "El campo items[0].price es obligatorio.")
        let currency = CanteenError(.invalid, code: .unknownCurrency, message: "", parameters: ["currency": "XYZ"])
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
