import CanteenCore
import Foundation

/// The UI strings of `Locales/`: one flat JSON object per language (`Locales/ja.json`), keyed
/// like `state.ready`, `label.sold_out` or `error.not_found`, with `{name}` placeholders.
///
/// A key missing from a language falls back to `en`; a key missing from `en` too gives a
/// generic message, never the raw key.
public struct Strings: Sendable {
    /// The language every other one falls back to.
    public static let baseLanguage = "en"
    /// Shown when not even `en` has a key (and `en` lacks `error.unknown`).
    public static let genericMessage = "Something went wrong."
    /// Shown in place of a placeholder whose value was not given.
    public static let missingValue = "…"

    /// Strings per language, then per key.
    public let tables: [String: [String: String]]

    /// A catalog over already loaded tables; `tables` must contain `en`.
    public init(tables: [String: [String: String]]) {
        self.tables = tables
    }

    /// Loads every `*.json` file of `directory` (the `Locales/` folder); throws
    /// `locales_unreadable` naming the file when one is not a JSON object of strings, or when
    /// `en.json` is missing.
    public init(directory: URL) throws(CanteenError) {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "json" }
        } catch {
            throw Self.unreadable(directory.path, "cannot list the folder: \(error.localizedDescription)")
        }
        var tables: [String: [String: String]] = [:]
        for file in files {
            let language = file.deletingPathExtension().lastPathComponent
            guard LanguageTag.isWellFormed(language) else {
                throw Self.unreadable(file.path, "'\(language)' is not a language tag")
            }
            let table: [String: String]
            do {
                table = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
            } catch {
                throw Self.unreadable(file.path, "not a JSON object of strings")
            }
            tables[language] = table
        }
        guard tables[Self.baseLanguage] != nil else {
            throw Self.unreadable(directory.path, "no \(Self.baseLanguage).json")
        }
        self.tables = tables
    }

    /// The languages with a file, sorted.
    public var languages: [String] { tables.keys.sorted() }

    // MARK: - Lookup

    /// The string `key` in `language` (else `en`, else a generic message), placeholders filled
    /// from `parameters`; a placeholder without a value shows `…`.
    public func string(_ key: String, language: String, parameters: [String: String] = [:]) -> String {
        let template =
            tables[language]?[key]
            ?? tables[Self.baseLanguage]?[key]
            ?? tables[language]?["error.unknown"]
            ?? tables[Self.baseLanguage]?["error.unknown"]
            ?? Self.genericMessage
        return Self.fill(template, with: parameters)
    }

    /// The message of `error` in `language`: `error.<code>`, filled from its parameters and
    /// `{field}` from its field.
    public func message(for error: CanteenError, language: String) -> String {
        var parameters = error.parameters
        if parameters["field"] == nil, let field = error.field { parameters["field"] = field }
        return string("error.\(error.code.rawValue)", language: language, parameters: parameters)
    }

    // MARK: - Placeholders

    /// `template` with each `{name}` replaced by `parameters[name]` (or `…`); other braces stay.
    static func fill(_ template: String, with parameters: [String: String]) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}"),
                isPlaceholderName(rest[afterOpen..<close])
            else {
                result += "{"
                rest = rest[afterOpen...]
                continue
            }
            result += parameters[String(rest[afterOpen..<close])] ?? missingValue
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    /// The placeholder names used in `template` (`{id}`, `{field}`).
    public static func placeholders(in template: String) -> Set<String> {
        var names: Set<String> = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}") else { break }
            let name = rest[afterOpen..<close]
            if isPlaceholderName(name) {
                names.insert(String(name))
                rest = rest[rest.index(after: close)...]
            } else {
                rest = rest[afterOpen...]
            }
        }
        return names
    }

    private static func isPlaceholderName(_ name: Substring) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }

    private static func unreadable(_ path: String, _ reason: String) -> CanteenError {
        CanteenError(
            .internal, code: .localesUnreadable, message: "\(path): \(reason)",
            parameters: ["path": path])
    }
}
