import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenFormat
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Responses in the reader's language, in the café's currency and time zone")
struct LocalizationTests {
    func latte(_ menu: JSONValue) -> JSONValue? { menu["categories", 0, "items", 0] }

    @Test("a Chicago café shows US dollars to a reader in es-UY, with Uruguayan separators and Spanish names")
    func uruguayanReader() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.acceptLanguage: "es-UY,es;q=0.9,en;q=0.5"])
            let menu = try response.json
            let expected = PriceFormatter().format(
                Money(minorUnits: 450, currency: .usd), locale: Locale(identifier: "es_UY"))
            #expect(latte(menu)?["price", "formatted"] == .string(expected))
            #expect(expected.contains("4,50"))
            #expect(expected.contains("US$"))
            #expect(latte(menu)?["price", "currency"] == "USD")
            #expect(latte(menu)?["name"] == "Café con leche")
            #expect(response.headers[.contentLanguage] == "es")
            #expect(response.headers[.vary] == "Accept-Language")
        }
    }

    @Test("the menu ETag differs per reader language, so caches never mix them")
    func etagPerLanguage() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let english = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.acceptLanguage: "en-US"])
            let spanish = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.acceptLanguage: "es-UY", .ifNoneMatch: english.headers[.eTag] ?? ""])
            #expect(spanish.status == .ok)
            #expect(spanish.headers[.eTag] != english.headers[.eTag])
        }
    }

    @Test("without Accept-Language the café's default locale is used")
    func cafeDefault() async throws {
        let environment = try await TestEnvironment.make(sampleCafes: true)
        try await withRouter(environment) { client in
            let tokyo = try await client.send(.get, "/v1/cafes/tokyo/menu", token: environment.kiosk)
            let price = try #require(tokyo.json["categories", 0, "items", 0, "price"])
            guard case .int(let amount)? = price["amount"] else { Issue.record("no amount"); return }
            let expected = PriceFormatter().format(
                Money(minorUnits: amount, currency: .jpy), locale: Locale(identifier: "ja_JP"))
            #expect(price["formatted"] == .string(expected))
            #expect(!expected.contains("."))
            #expect(tokyo.headers[.contentLanguage] == "ja")
            let kuwait = try await client.send(
                .get, "/v1/cafes/kuwait/menu", token: environment.kiosk,
                headers: [.acceptLanguage: "en"])
            let kwd = try #require(kuwait.json["categories", 0, "items", 0, "price"])
            guard case .int(let fils)? = kwd["amount"] else { Issue.record("no amount"); return }
            #expect(
                kwd["formatted"]
                    == .string(
                        PriceFormatter().format(
                            Money(minorUnits: fils, currency: .kwd),
                            locale: Locale(identifier: "en"))))
        }
    }

    @Test("pickup windows carry labels in the reader's locale and the café's time zone")
    func windowLabels() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows", token: environment.kiosk,
                headers: [.acceptLanguage: "fr-FR"])
            let first = try #require(try response.json["windows", 0])
            let start = try #require(RFC3339.parse(first["start"]?.stringValue ?? ""))
            let end = try #require(RFC3339.parse(first["end"]?.stringValue ?? ""))
            let expected = PickupWindowFormatter().label(
                start: start, end: end,
                timeZone: TimeZone(identifier: "America/Chicago")!,
                locale: Locale(identifier: "fr-FR"))
            #expect(first["label"] == .string(expected))
            #expect(expected.contains("09:15"))
        }
    }

    @Test("error messages come in the reader's language, from Locales/")
    func errorMessages() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/cafes", headers: [.acceptLanguage: "ja"])
            #expect(response.status == .unauthorized)
            let expected = TestEnvironment.strings.string("error.unauthenticated", language: "ja")
            #expect(try response.json["error", "message"] == .string(expected))
            #expect(response.headers[.contentLanguage] == "ja")
            #expect(expected != TestEnvironment.strings.string("error.unauthenticated", language: "en"))
        }
    }

    @Test("order states have labels in the reader's language")
    func stateLabels() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var headers = HTTPFields()
            headers[HTTPField.Name("Idempotency-Key")!] = "fr-1"
            headers[.acceptLanguage] = "fr"
            let placed = try await client.send(
                .post, "/v1/orders", token: environment.kiosk, json: orderBody(), headers: headers)
            #expect(
                try placed.json["statusLabel"]
                    == .string(TestEnvironment.strings.string("state.placed", language: "fr")))
        }
    }
}
