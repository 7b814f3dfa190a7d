import CanteenJSON
import Foundation

extension CafeDocument {
    // MARK: - Fields

    static func readIdentifier(_ reader: inout JSONObjectReader, _ key: String) -> String? {
        guard let id = reader.string(key) else { return nil }
        guard Identifier.isValid(id) else {
            reader.problems.add(reader.childPath(key), "'\(id)' is not an id: use 1–64 of a-z, 0-9, '-' and '_'")
            return nil
        }
        return id
    }

    /// The longest name and description, in characters (and 4 bytes each).
    static let maxNameLength = 200
    static let maxDescriptionLength = 2000

    /// A map of language → text that must hold every language the café declares. Names hold no
    /// control character; descriptions may break lines.
    static func readText(
        _ reader: inout JSONObjectReader, _ key: String, languages: [String]?,
        kind: TextLimits.Kind = .name
    ) -> LocalizedText? {
        guard let textReader = reader.object(key) else { return nil }
        var translations: [String: String] = [:]
        var failed = false
        for language in textReader.keys {
            var copy = textReader
            let limit = kind == .name ? maxNameLength : maxDescriptionLength
            guard let text = copy.string(language, limit: limit, kind: kind) else { failed = true; continue }
            translations[language] = text
        }
        if let languages {
            for language in languages where translations[language] == nil {
                reader.problems.add(
                    textReader.childPath(language), "missing the '\(language)' translation",
                    code: .missingTranslation)
                failed = true
            }
            for language in translations.keys.sorted() where !languages.contains(language) {
                reader.problems.add(
                    textReader.childPath(language),
                    "'\(language)' is not one of the café's languages \(languages)")
                failed = true
            }
        }
        return failed ? nil : LocalizedText(translations)
    }

    static func readTime(_ reader: inout JSONObjectReader, _ key: String) -> LocalTime? {
        guard let text = reader.string(key) else { return nil }
        guard let time = LocalTime(parsing: text) else {
            reader.problems.add(reader.childPath(key), "'\(text)' is not a time of day HH:MM")
            return nil
        }
        return time
    }

    static func readUUID(_ reader: inout JSONObjectReader, _ key: String) -> UUID? {
        guard let text = reader.string(key) else { return nil }
        guard let uuid = UUID(uuidString: text) else {
            reader.problems.add(reader.childPath(key), "'\(text)' is not a UUID")
            return nil
        }
        return uuid
    }

    static func readStrings(_ reader: inout JSONObjectReader, _ key: String, required: Bool) -> [String]? {
        guard let values = reader.array(key, required: required) else { return nil }
        var strings: [String] = []
        for (index, value) in values.enumerated() {
            guard let string = value.stringValue, !string.isEmpty else {
                reader.problems.add(
                    "\(reader.childPath(key))[\(index)]", "expected a non-empty string, found \(value.typeName)")
                return nil
            }
            strings.append(string)
        }
        return strings
    }

    /// A price in whole minor units of the café's currency.
    static func readMinorUnits(
        _ reader: inout JSONObjectReader, _ key: String, currency: Currency?,
        allowNegative: Bool
    ) -> Int64? {
        let fractional = currency.map(fractionalMessage)
        let range: ClosedRange<Int64> = allowNegative ? (-1_000_000_000_000)...1_000_000_000_000 : 0...1_000_000_000_000
        return reader.integer(key, in: range, fractionalMessage: fractional)
    }

    public static func fractionalMessage(_ currency: Currency) -> String {
        if currency.minorUnits == 0 { return "\(currency.code) has no minor units; expected a whole number" }
        let unit =
            [1: "tenths", 2: "hundredths", 3: "thousandths", 4: "ten-thousandths"][currency.minorUnits] ?? "minor units"
        return "\(currency.code) prices are whole minor units (\(unit)); expected a whole number"
    }

    /// A zone name of tzdata (`America/Chicago`, `Asia/Kolkata`, `UTC`); abbreviations and offsets
    /// (`EST`, `GMT+5`) are not (`CafeTimeZone.refusal(of:)`).
    public static func isKnownTimeZone(_ identifier: String) -> Bool {
        CafeTimeZone.refusal(of: identifier) == nil
    }
}
