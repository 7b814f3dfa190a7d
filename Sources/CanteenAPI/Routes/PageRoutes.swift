import CanteenCore
import CanteenFormat
import CanteenWeb
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages a café puts on its tablets, `/kds` (kitchen display), `/kiosk` and `/board`
/// (pickup board), and the files they load from `/assets/`. Pages need no token: they ask for
/// one and send it with every API call. The kitchen display and kiosk speak the reader's
/// language (`Accept-Language`), the board its café's; `?lang=` chooses one for any page.
struct PageRoutes {
    let services: APIServices
    let assets: Result<WebAssets, WebAssetsError>

    /// The string families a page's script may look up (`web.kds.bump`, `state.ready`, `error.coupon_used_up`, …).
    static let stringPrefixes = ["web.", "state.", "label.", "allergen.", "error."]

    /// Every page answer forbids what the pages never do: inline scripts, other origins, frames.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; "
        + "frame-ancestors 'none'"

    func register(on routes: RouteTable) {
        for page in WebAssets.pageNames {
            routes.on(.get, "/\(page)") { request, _ in try await render(page, request) }
        }
        routes.on(.get, "/assets/:name") { request, context in try asset(request, context) }
        // The employee page's service worker, served from the root so that its scope can be `/app`.
        routes.on(.get, "/app-sw.js") { request, _ in try serviceWorker(request) }
    }

    // MARK: - Pages

    func render(_ page: String, _ request: Request) async throws -> Response {
        let assets = try loaded()
        guard let template = assets.template(page: page) else {
            throw CanteenError(
                .notFound, code: .assetNotFound, message: "no page '\(page)'",
                parameters: ["name": page])
        }
        let query = request.uri.queryParameters
        var chosenLanguage: String?
        if let text = query.get("lang") {
            guard LanguageTag.isWellFormed(text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "'\(text)' is not a language tag such as en or ar-KW", field: "lang")
            }
            chosenLanguage = text
        }
        var cafe: Cafe?
        if let cafeID = query.get("cafe"), Identifier.isValid(cafeID) {
            cafe = try await services.cafes.cafe(id: cafeID)?.cafe
        }
        // The board is a public screen in its café's language; the others follow their reader.
        let acceptLanguage = page == "board" ? chosenLanguage : chosenLanguage ?? request.headers[.acceptLanguage]
        let presentation = services.presenter.presentation(acceptLanguage: acceptLanguage, cafe: cafe)
        let cafeLocale = cafe?.defaultLocale.replacingOccurrences(of: "_", with: "-")
        let apiLanguage = chosenLanguage ?? (page == "board" ? cafeLocale : nil)
        let language = presentation.language
        let strings = services.presenter.strings
        let html = PageTemplate.render(template) { name in
            switch name {
            case "lang": presentation.contentLanguage
            case "dir": Self.isRightToLeft(language) ? "rtl" : "ltr"
            case "locale": presentation.locale.identifier.replacingOccurrences(of: "_", with: "-")
            case "apiLanguage": apiLanguage ?? ""
            // Whether the page offers the company's sign-in (`/ops` beside its token field).
            case "signIn": services.identity.provider == nil ? "tokens" : "provider"
            case "strings": PageTemplate.scriptSafeJSON(Self.pageStrings(strings, language: language))
            default: name.hasPrefix("t.") ? strings.string(String(name.dropFirst(2)), language: language) : nil
            }
        }
        var headers = presentation.headers
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page strings of `language` (each falling back to English) as one JSON object, with
    /// their `{placeholders}` for the script to fill.
    static func pageStrings(_ strings: Strings, language: String) -> String {
        let base = strings.tables[Strings.baseLanguage] ?? [:]
        let own = strings.tables[language] ?? [:]
        var table: [String: String] = [:]
        for (key, text) in base where stringPrefixes.contains(where: { key.hasPrefix($0) }) {
            table[key] = own[key] ?? text
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(table)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Whether `language` (`ar`, `he`, `en`) is written right to left.
    static func isRightToLeft(_ language: String) -> Bool {
        Locale.Language(identifier: language).characterDirection == .rightToLeft
    }

    // MARK: - Files

    func asset(_ request: Request, _ context: CanteenRequestContext) throws -> Response {
        let name = try context.parameters.path("name")
        guard !name.hasSuffix(".html"), let asset = try loaded().asset(named: name) else {
            throw CanteenError(
                .notFound, code: .assetNotFound, message: "no file '\(name)' under /assets",
                parameters: ["name": name])
        }
        return Self.answer(asset, to: request)
    }

    func serviceWorker(_ request: Request) throws -> Response {
        guard let asset = try loaded().asset(named: "app-sw.js") else {
            throw CanteenError(
                .notFound, code: .assetNotFound, message: "no service worker", parameters: ["name": "app-sw.js"])
        }
        return Self.answer(asset, to: request)
    }

    /// A file of the pages, revalidated by its ETag (304 when the browser's copy is current).
    private static func answer(_ asset: WebAssets.Asset, to request: Request) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        headers[.xContentTypeOptions] = "nosniff"
        if let condition = request.headers[.ifNoneMatch], EntityTags.noneMatch(condition, asset.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    private func loaded() throws(CanteenError) -> WebAssets {
        switch assets {
        case .success(let assets): return assets
        case .failure(let error):
            throw CanteenError(.internal, code: .internalError, message: "the pages cannot be served: \(error)")
        }
    }
}
