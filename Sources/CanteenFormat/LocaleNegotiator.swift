import CanteenCore
import Foundation

/// Chooses a request's formatting locale and strings language from its `Accept-Language`
/// header, the languages of `Locales/` and the café's default locale.
///
/// - Formatting follows the reader's most wanted tag whose language ICU has data for; with no
///   such tag (no header, only `*`, only unknown languages) it follows the café's default locale.
/// - Strings come from the first acceptable range that a `Locales/` file serves, matching by
///   dropping subtags and by likely scripts (`es-UY` → `es`, `zh-CN` → `zh-Hans-CN` → `zh-Hans`);
///   `*` stands for the café's language. Ranges refused with `q=0` are never chosen. When no
///   file serves the reader, without a header the café's language is used, else `fallbackLanguage`.
public struct LocaleNegotiator: Sendable {
    /// The language used when nothing else matches; it must have a `Locales/` file.
    public static let fallbackLanguage = "en"

    /// The `Locales/` languages, keyed by their lower-cased name.
    private let available: [String: String]
    private let cache = BoundedCache<CacheKey, LocaleNegotiation>(capacity: 4096)

    /// A negotiator over the `Locales/` languages (`["en", "ja", "zh-Hans"]`).
    public init(availableLanguages: [String]) {
        var available: [String: String] = [:]
        for language in availableLanguages { available[language.lowercased()] = language }
        self.available = available
    }

    // MARK: - Negotiation

    /// The locale and language for a request with `acceptLanguage` (nil when absent) at a café
    /// whose default locale is `defaultLocale` (`ja_JP`).
    ///
    /// Results are remembered by what the header says once parsed (its acceptable ranges in
    /// order and its refusals), not by its raw text: spelling, spacing and weights a client
    /// varies do not make new entries.
    public func negotiate(acceptLanguage: String?, defaultLocale: String) -> LocaleNegotiation {
        let header = AcceptLanguage(header: acceptLanguage ?? "")
        let preferred = header.preferred
        let key = CacheKey(
            preferred: preferred.map(\.tag), refused: header.ranges.filter { $0.quality == 0 }.map(\.tag),
            defaultLocale: defaultLocale)
        return cache.value(for: key) { computeNegotiation(header, preferred: preferred, defaultLocale: defaultLocale) }
    }

    private func computeNegotiation(
        _ header: AcceptLanguage, preferred: [AcceptLanguage.Range],
        defaultLocale: String
    ) -> LocaleNegotiation {
        let cafeTag = defaultLocale.replacingOccurrences(of: "_", with: "-")

        var formattingTag: String?
        var language: String?
        for range in preferred {
            let tag = range.isWildcard ? cafeTag : range.tag
            if formattingTag == nil, range.isWildcard || Self.hasLocaleData(tag) { formattingTag = tag }
            if language == nil, let match = bestFile(for: tag), !header.refuses(match) { language = match }
            if formattingTag != nil, language != nil { break }
        }
        if preferred.isEmpty, let match = bestFile(for: cafeTag), !header.refuses(match) {
            language = match
        }
        let chosen = language ?? Self.fallbackLanguage
        return LocaleNegotiation(
            formattingLocale: Locale(identifier: formattingTag ?? cafeTag),
            language: chosen,
            contentLanguage: chosen,
            readerTags: preferred.filter { !$0.isWildcard }.map(\.tag))
    }

    /// The `Locales/` language serving `tag`, or nil.
    public func bestFile(for tag: String) -> String? {
        let base = Self.withoutExtensions(tag)
        if let match = lookup(base) { return match }
        let likely = Locale.Language(identifier: base).maximalIdentifier
        return lookup(likely.replacingOccurrences(of: "_", with: "-"))
    }

    /// RFC 4647 lookup: `zh-Hans-CN`, then `zh-Hans`, then `zh`.
    private func lookup(_ tag: String) -> String? {
        var subtags = tag.lowercased().split(separator: "-")
        while !subtags.isEmpty {
            if let match = available[subtags.joined(separator: "-")] { return match }
            subtags.removeLast()
        }
        return nil
    }

    // MARK: - Tags

    /// `ar-EG-u-nu-latn` → `ar-EG`: the tag before its first singleton subtag.
    static func withoutExtensions(_ tag: String) -> String {
        let subtags = tag.split(separator: "-")
        let kept = subtags.prefix { $0.count > 1 }
        return kept.joined(separator: "-")
    }

    /// Whether ICU has locale data for `tag`'s language (`xx-YY` would silently format as root).
    static func hasLocaleData(_ tag: String) -> Bool {
        guard let language = tag.split(separator: "-").first else { return false }
        return icuLanguages.contains(language.lowercased())
    }

    private static let icuLanguages: Set<String> = Set(
        Locale.availableIdentifiers.compactMap { identifier in
            identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map { $0.lowercased() }
        })

    struct CacheKey: Hashable, Sendable {
        var preferred: [String]
        var refused: [String]
        var defaultLocale: String
    }
}

extension LocaleNegotiator {
    /// A negotiator over the languages of a loaded `Locales/` catalog.
    public init(strings: Strings) {
        self.init(availableLanguages: strings.languages)
    }
}
