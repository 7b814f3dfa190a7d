import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenFormat
import CanteenJSON
import CanteenTestSupport
import CanteenWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The pages /kds, /kiosk and /board")
struct PageRoutesTests {
    static func html(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// The strings a page embeds for its script.
    static func strings(_ html: String) throws -> JSONValue {
        let start = try #require(html.range(of: #"<script type="application/json" id="canteen-strings">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try JSONValue.parse(Data(html[start.upperBound..<end.lowerBound].utf8))
    }

    @Test(
        "each page is served without a token, in the reader's language, with html lang and dir",
        arguments: [
            ("/kds", "en", "en", "ltr"), ("/kds", "ar-KW,ar;q=0.9", "ar", "rtl"), ("/kiosk", "ja-JP", "ja", "ltr"),
            ("/kiosk", "fr-CA", "fr", "ltr"), ("/kds", "zh-CN", "zh-Hans", "ltr"),
        ])
    func language(path: String, acceptLanguage: String, language: String, direction: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, path, headers: [.acceptLanguage: acceptLanguage])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.contentLanguage] == language)
            let html = Self.html(response)
            #expect(html.contains(#"<html lang="\#(language)" dir="\#(direction)""#))
            #expect(!html.contains("{{"), "a placeholder was left in the page")
            let strings = try Self.strings(html)
            #expect(
                strings["web.token.label"]?.stringValue
                    == TestEnvironment.strings.string("web.token.label", language: language))
            #expect(
                strings["state.ready"]?.stringValue == TestEnvironment.strings.string("state.ready", language: language)
            )
            #expect(strings["error.not_found"] == nil, "only the page's strings are sent")
        }
    }

    @Test("?lang= chooses the language whatever the reader's header says; a malformed one is 422")
    func chosenLanguage() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let arabic = try await client.send(.get, "/kds?lang=ar", headers: [.acceptLanguage: "en"])
            #expect(Self.html(arabic).contains(#"lang="ar" dir="rtl""#))
            #expect(Self.html(arabic).contains(#"data-api-language="ar""#))
            let bad = try await client.send(.get, "/kds?lang=%3Cscript%3E")
            #expect(bad.status == .unprocessableContent)
            #expect(bad.errorField == "lang")
        }
    }

    @Test("the board speaks its café's language, not the reader's, and tells its script which to ask the API for")
    func boardLanguage() async throws {
        let environment = try await TestEnvironment.make()
        var tokyo = try #require(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe)
        tokyo.defaultLocale = "es_MX"
        _ = try await environment.stores.cafes.saveCafe(tokyo)
        try await withRouter(environment) { client in
            let board = try await client.send(.get, "/board?cafe=testcafe", headers: [.acceptLanguage: "ja"])
            #expect(board.headers[.contentLanguage] == "es")
            #expect(Self.html(board).contains(#"data-api-language="es-MX""#))
            let kds = try await client.send(.get, "/kds?cafe=testcafe", headers: [.acceptLanguage: "ja"])
            #expect(kds.headers[.contentLanguage] == "ja")
            #expect(Self.html(kds).contains(#"data-api-language="""#))
        }
    }

    @Test("pages forbid inline scripts, other origins and frames, and are revalidated")
    func headers() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for page in WebAssets.pageNames {
                let response = try await client.send(.get, "/\(page)")
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.cacheControl] == "no-cache")
                let html = Self.html(response)
                #expect(!html.contains("<script>"), "no inline script in \(page)")
                #expect(!html.contains("http://") && !html.contains("https://"), "\(page) loads nothing from elsewhere")
            }
        }
    }

    @Test(
        "assets are served with their type and a strong ETag, 304 when unchanged; templates and unknown files are 404")
    func assets() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let script = try await client.send(.get, "/assets/kds.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            let etag = try #require(script.headers[.eTag])
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            let again = try await client.send(.get, "/assets/kds.js", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            let style = try await client.send(.get, "/assets/canteen.css")
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            for missing in ["/assets/kds.html", "/assets/nope.js", "/assets/..%2FPackage.swift"] {
                let response = try await client.send(.get, missing)
                #expect(response.status == .notFound, "\(missing)")
            }
        }
    }

    @Test("every string a page's script or template uses exists in every language")
    func stringsExist() throws {
        let assets = try WebAssets.bundled.get()
        var keys: Set<String> = []
        let patterns = [#"\bt\('([a-z_]+\.[a-z_.]+)'"#, #"'(web\.[a-z_.]+)'"#, #"\{\{t\.([a-z_.]+)\}\}"#]
        for asset in assets.assets.values where asset.name.hasSuffix(".js") || asset.name.hasSuffix(".html") {
            let text = String(decoding: asset.bytes, as: UTF8.self)
            for pattern in patterns {
                let regex = try Regex(pattern)
                for match in text.matches(of: regex) {
                    if let key = match.output[1].substring { keys.insert(String(key)) }
                }
            }
        }
        #expect(keys.count > 60)
        for (language, table) in TestEnvironment.strings.tables {
            let missing = keys.filter { table[$0] == nil }.sorted()
            #expect(missing.isEmpty, "\(language).json lacks \(missing)")
        }
    }
}

@Suite("Page templates")
struct PageTemplateTests {
    @Test("values are escaped for HTML; triple braces insert as they are; unknown names leave nothing")
    func render() {
        let html = PageTemplate.render(#"<p title="{{a}}">{{ b }}</p>{{{raw}}}{{missing}}{{open"#) { name in
            ["a": #"x" onload="y"#, "b": "<b>&", "raw": "<i>"][name]
        }
        #expect(html == #"<p title="x&quot; onload=&quot;y">&lt;b&gt;&amp;</p><i>{{open"#)
    }

    @Test("JSON inside a script element cannot close it")
    func scriptSafe() {
        #expect(PageTemplate.scriptSafeJSON(#"{"a":"</script><!--"}"#) == #"{"a":"\u003c/script>\u003c!--"}"#)
    }
}
