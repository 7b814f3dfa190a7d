/// A text in several languages, keyed by language code (`en`, `ja`, `zh-Hans`).
public struct LocalizedText: Hashable, Sendable, Codable {
    public var translations: [String: String]

    public init(_ translations: [String: String]) { self.translations = translations }

    public init(from decoder: any Decoder) throws {
        translations = try decoder.singleValueContainer().decode([String: String].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(translations)
    }

    /// The first language of `preferred` that has a translation, else English, else any.
    public func resolved(for preferred: [String]) -> String {
        for language in preferred {
            if let text = translations[language] { return text }
            // "zh-Hans-CN" → "zh-Hans" → "zh"
            var parts = language.split(separator: "-")
            while parts.count > 1 {
                parts.removeLast()
                if let text = translations[parts.joined(separator: "-")] { return text }
            }
        }
        return translations["en"] ?? translations.sorted { $0.key < $1.key }.first?.value ?? ""
    }
}
