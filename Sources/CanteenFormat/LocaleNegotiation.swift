import Foundation

/// What a request is answered in: the locale numbers and dates follow, the `Locales/` language
/// strings come from, and the `Content-Language` header that says so.
public struct LocaleNegotiation: Hashable, Sendable {
    /// The reader's own best tag, extensions kept (`ar-EG-u-nu-latn` keeps Latin digits).
    public var formattingLocale: Locale
    /// The `Locales/` file the strings come from (`es` for `es-UY`, `zh-Hans` for `zh-CN`).
    public var language: String
    /// The value for the response's `Content-Language` header: the language of its strings.
    public var contentLanguage: String
    /// The header's acceptable tags, most wanted first, without `*` (menu texts are looked up in
    /// this order before the café's languages).
    public var readerTags: [String]

    public init(formattingLocale: Locale, language: String, contentLanguage: String, readerTags: [String] = []) {
        self.formattingLocale = formattingLocale
        self.language = language
        self.contentLanguage = contentLanguage
        self.readerTags = readerTags
    }
}
