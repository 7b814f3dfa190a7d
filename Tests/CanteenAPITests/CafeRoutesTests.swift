import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Cafés over HTTP")
struct CafeRoutesTests {
    @Test("GET /healthz answers without a token")
    func health() async throws {
        try await withRouter(try await TestEnvironment.make()) { client in
            let response = try await client.send(.get, "/healthz")
            #expect(response.status == .ok)
            #expect(try response.json["status"] == "ok")
        }
    }

    @Test("every /v1 route answers 401 without a token, and with an unknown or malformed one")
    func everyRouteNeedsAToken() async throws {
        let environment = try await TestEnvironment.make()
        let entries = CanteenRouter.build(environment.services).entries
        try await withRouter(environment) { client in
            for entry in entries where entry.path.hasPrefix("/v1") {
                let uri = entry.path.replacingOccurrences(of: ":cafeId", with: "testcafe")
                    .replacingOccurrences(of: ":itemId", with: "latte")
                let method = HTTPRequest.Method(entry.method)!
                let anonymous = try await client.send(method, uri, json: [:])
                #expect(anonymous.status == .unauthorized, "\(entry.method) \(uri)")
                #expect(anonymous.errorCode == "unauthenticated")
                #expect(anonymous.headers[.wwwAuthenticate] == "Bearer")
                let unknown = try await client.send(method, uri, token: "cnt_not-a-real-token", json: [:])
                #expect(unknown.status == .unauthorized, "\(entry.method) \(uri)")
                let malformed = try await client.send(method, uri, json: [:], headers: [.authorization: "Basic abc"])
                #expect(malformed.status == .unauthorized, "\(entry.method) \(uri)")
            }
        }
    }

    @Test("a revoked token is refused")
    func revoked() async throws {
        let environment = try await TestEnvironment.make()
        let id = try #require(try await environment.stores.tokens.tokens().first { $0.name == "kiosk" }).id
        try await environment.stores.tokens.revokeToken(id: id)
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/cafes", token: environment.kiosk)
            #expect(response.status == .unauthorized)
        }
    }

    @Test("any token lists cafés; a bound token sees only its own")
    func list() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let all = try await client.send(.get, "/v1/cafes", token: environment.kitchen)
            #expect(all.status == .ok)
            guard case .array(let cafes)? = try all.json["cafes"] else { Issue.record("no cafes array"); return }
            #expect(cafes.compactMap { $0["id"]?.stringValue } == ["othercafe", "testcafe"])
            let bound = try await client.send(.get, "/v1/cafes", token: environment.boundKiosk)
            #expect(try bound.json["cafes", 0, "id"] == "testcafe")
            #expect(try bound.json["cafes", 1] == nil)
        }
    }

    @Test("a café reads back its time zone, currency, locale, hours and beacon region")
    func read() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/cafes/testcafe", token: environment.kiosk)
            #expect(response.status == .ok)
            let cafe = try response.json
            #expect(cafe["timeZone"] == "America/Chicago")
            #expect(cafe["currency"] == "USD")
            #expect(cafe["defaultLocale"] == "en_US")
            #expect(cafe["hours", "monday", 0, "open"] == "07:00")
            #expect(cafe["beaconRegion", "major"] == 900)
            #expect(cafe["openNow"] == true)
        }
    }

    @Test("a token bound to another café gets 403; an unknown café 404")
    func boundAndUnknown() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let other = try await client.send(.get, "/v1/cafes/othercafe", token: environment.boundKiosk)
            #expect(other.status == .forbidden)
            #expect(other.errorCode == "forbidden")
            let menu = try await client.send(.get, "/v1/cafes/othercafe/menu", token: environment.boundKiosk)
            #expect(menu.status == .forbidden)
            let unknown = try await client.send(.get, "/v1/cafes/nowhere", token: environment.ops)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "cafe_not_found")
        }
    }

    @Test("ops create a café (201), update it (200) and the menu version moves")
    func createAndUpdate() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var config = Fixtures.cafeConfiguration(Fixtures.cafeDocument(id: "newcafe", major: 950))
            let created = try await client.send(
                .put, "/v1/cafes/newcafe", token: environment.ops, json: .object(config))
            #expect(created.status == .created)
            #expect(try created.json["menuVersion"] == 1)
            config["defaultLocale"] = "es_US"
            let updated = try await client.send(
                .put, "/v1/cafes/newcafe", token: environment.ops, json: .object(config))
            #expect(updated.status == .ok)
            #expect(try updated.json["defaultLocale"] == "es_US")
            #expect(try updated.json["menuVersion"] == 2)
            // What GET returns can be sent back as it is.
            let read = try await client.send(.get, "/v1/cafes/newcafe", token: environment.ops)
            let again = try await client.send(.put, "/v1/cafes/newcafe", token: environment.ops, json: try read.json)
            #expect(again.status == .ok)
        }
    }

    @Test("only ops may change a café")
    func opsOnly() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let config = JSONValue.object(Fixtures.cafeConfiguration())
            for token in [environment.kiosk, environment.kitchen, environment.boundKiosk] {
                let response = try await client.send(.put, "/v1/cafes/testcafe", token: token, json: config)
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test("a bad café body gets 422 naming the field and changes nothing")
    func badCafe() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var config = Fixtures.cafeConfiguration()
            config["currency"] = "XYZ"
            let response = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, json: .object(config))
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == "unknown_currency")
            #expect(response.errorField == "currency")
            config["currency"] = "USD"
            config["id"] = "another"
            let mismatch = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, json: .object(config))
            #expect(mismatch.status == .unprocessableContent)
            #expect(mismatch.errorField == "id")
            let badID = try await client.send(.put, "/v1/cafes/Bad%20Id", token: environment.ops, json: .object(config))
            #expect(badID.status == .unprocessableContent)
        }
        #expect(try await environment.stores.cafes.cafe(id: "testcafe")?.menuVersion == 1)
    }

    @Test("malformed JSON gets 400 naming where it broke; other media types 415")
    func malformed() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, rawBody: "{\"id\": ")
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "malformed_json")
            let empty = try await client.send(.put, "/v1/cafes/testcafe", token: environment.ops, rawBody: "")
            #expect(empty.status == .badRequest)
            let form = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, rawBody: "a=b",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == .unsupportedMediaType)
        }
    }

    @Test("a body over 1 MiB gets 413")
    func tooLarge() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let huge = "{\"names\": \"" + String(repeating: "x", count: APILimits.maxBodyBytes + 10) + "\"}"
            let response = try await client.send(.put, "/v1/cafes/testcafe", token: environment.ops, rawBody: huge)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "body_too_large")
        }
    }

    @Test("an unknown route is a JSON 404; a known path with another method a JSON 405")
    func unknownRoute() async throws {
        try await withRouter(try await TestEnvironment.make()) { client in
            let response = try await client.send(.get, "/v1/nothing-here")
            #expect(response.status == .notFound)
            #expect(response.errorCode == "route_not_found")
            let wrongMethod = try await client.send(.delete, "/v1/orders")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.errorCode == "method_not_allowed")
            #expect(wrongMethod.headers[.allow] == "POST")
            let menu = try await client.send(.post, "/v1/cafes/testcafe/menu")
            #expect(menu.headers[.allow] == "GET, HEAD, PUT")
        }
    }
}
