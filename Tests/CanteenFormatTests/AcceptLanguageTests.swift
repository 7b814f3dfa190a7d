import Testing

@testable import CanteenFormat

@Suite("Accept-Language parsing")
struct AcceptLanguageTests {
    func tags(_ header: String) -> [String] { AcceptLanguage(header: header).preferred.map(\.tag) }

    @Test("ranges are ordered by q, ties keep header order")
    func ordering() {
        #expect(tags("fr;q=0.5, es-UY, ja;q=0.8, en;q=0.5") == ["es-UY", "ja", "fr", "en"])
    }

    @Test("q values are read in thousandths")
    func qualities() {
        let parsed = AcceptLanguage(header: "a;q=1, b;q=0.5, c;q=0.123, d;q=1.000, e;q=0, f;q=.7")
        #expect(parsed.ranges.map(\.quality) == [1000, 500, 123, 1000, 0, 700])
    }

    @Test("q=0 means not acceptable and refuses its subtags too")
    func refusal() {
        let parsed = AcceptLanguage(header: "fr-CA, en;q=0, zh;q=0")
        #expect(parsed.preferred.map(\.tag) == ["fr-CA"])
        #expect(parsed.refuses("en"))
        #expect(parsed.refuses("zh-Hans"))
        #expect(!parsed.refuses("fr"))
        #expect(!parsed.refuses("eng"))
    }

    @Test("wildcards, language-only tags and BCP 47 extensions are kept")
    func shapes() {
        #expect(tags("*;q=0.1, de, ar-EG-u-nu-latn;q=0.9") == ["de", "ar-EG-u-nu-latn", "*"])
        #expect(AcceptLanguage(header: "*").ranges.first?.isWildcard == true)
    }

    @Test("whitespace and tabs around parts and parameters are ignored")
    func whitespace() {
        #expect(tags("  en-US ,\tfr ; q = 0.5 ,ja;q=0.4  ") == ["en-US", "fr", "ja"])
    }

    @Test("underscored identifiers are read as tags")
    func underscores() {
        #expect(tags("en_US, es_UY;q=0.5") == ["en-US", "es-UY"])
    }

    @Test(
        "malformed parts are skipped and the rest kept",
        arguments: [
            "en;q=2, fr", "en;q=abc, fr", "en;q=, fr", "en;q=0.1234, fr", "123, fr", "toolongtag-x, fr",
            "en-, fr", "-en, fr", ", ,, fr", "e n, fr", "en;q, fr", "ja-JP-\u{00E9}, fr", "en;q=-1, fr", "😀, fr",
        ])
    func malformed(header: String) {
        #expect(tags(header) == ["fr"])
    }

    @Test(
        "hostile headers never crash and stay bounded",
        arguments: [
            "", ",", ";", ";;;q=", "q=1", "*;q=0", String(repeating: "en,", count: 10_000),
            String(repeating: "a", count: 100_000), "\u{0000}\u{FFFF}", "en;q=0.5;q=0.6;foo=bar",
        ])
    func hostile(header: String) {
        let parsed = AcceptLanguage(header: header)
        #expect(parsed.ranges.count <= AcceptLanguage.maximumRanges)
    }

    @Test("extra parameters are ignored, the last q wins")
    func parameters() {
        #expect(AcceptLanguage(header: "en;level=1;q=0.3").ranges == [.init(tag: "en", quality: 300)])
    }
}
