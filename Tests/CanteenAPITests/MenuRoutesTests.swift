import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Menus over HTTP")
struct MenuRoutesTests {
    func item(_ menu: JSONValue, _ id: String) -> JSONValue? {
        guard case .array(let categories)? = menu["categories"] else { return nil }
        for category in categories {
            guard case .array(let items)? = category["items"] else { continue }
            if let found = items.first(where: { $0["id"]?.stringValue == id }) { return found }
        }
        return nil
    }

    @Test("the menu lists categories and items with prices in minor units and the café's currency")
    func read() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(response.status == .ok)
            let menu = try response.json
            #expect(menu["categories", 0, "id"] == "coffee")
            #expect(item(menu, "latte")?["price"] == ["amount": 450, "currency": "USD", "formatted": "$4.50"])
            #expect(item(menu, "latte")?["modifierGroups", 0, "options", 1, "priceDelta", "amount"] == 60)
            #expect(item(menu, "burrito")?["available"] == true)
            #expect(response.headers[.eTag] != nil)
        }
    }

    @Test("If-None-Match with the current ETag answers 304; any change answers 200 with a new ETag")
    func conditional() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let first = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            let etag = try #require(first.headers[.eTag])
            let again = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            let change = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.ops,
                json: ["price": 475])
            #expect(change.status == .ok)
            let changed = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != etag)
            #expect(item(try changed.json, "latte")?["price", "amount"] == 475)
        }
    }

    @Test("a breakfast item stops being available after breakfast, in café time, and the ETag changes")
    func dayParts() async throws {
        let environment = try await TestEnvironment.make(at: Fixtures.chicagoMonday(hour: 10, minute: 29))
        try await withRouter(environment) { client in
            let during = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(item(try during.json, "burrito")?["available"] == true)
            environment.clock.set(Fixtures.chicagoMonday(hour: 10, minute: 30))
            let after = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.ifNoneMatch: during.headers[.eTag] ?? ""])
            #expect(after.status == .ok)
            #expect(item(try after.json, "burrito")?["available"] == false)
            #expect(item(try after.json, "burrito")?["unavailableReason"] == "outside_day_part")
        }
    }

    @Test("ops mark an item sold out until a time; it is unavailable until then")
    func soldOut() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let until = "2026-11-23T12:00:00-06:00"
            let response = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/salad", token: environment.ops,
                json: ["soldOut": true, "soldOutUntil": .string(until)])
            #expect(response.status == .ok)
            #expect(item(try response.json, "salad")?["available"] == false)
            #expect(item(try response.json, "salad")?["unavailableReason"] == "sold_out")
            environment.clock.set(Fixtures.chicagoMonday(hour: 12))
            let later = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(item(try later.json, "salad")?["available"] == true)
            let back = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.ops,
                json: ["soldOut": false])
            #expect(item(try back.json, "latte")?["available"] == true)
        }
    }

    @Test(
        "bad item changes get a 4xx naming the field and change nothing",
        arguments: [
            (JSONValue.object(["price": .double(4.75)]), "price"),
            (["price": -5], "price"),
            (["soldOut": "yes"], "soldOut"),
            (["soldOut": true, "soldOutUntil": "tomorrow"], "soldOutUntil"),
            (["soldOut": true, "soldOutUntil": "2020-01-01T00:00:00Z"], "soldOutUntil"),
            (["soldOut": true, "sold_out_until": "2027-01-01T00:00:00Z"], "sold_out_until"),
            ([:], nil),
            (["price": 500, "currency": "EUR"], "currency"),
        ] as [(JSONValue, String?)])
    func badChanges(body: JSONValue, field: String?) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.ops, json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorField == field)
        }
        #expect(try await environment.stores.cafes.cafe(id: "testcafe")?.menuVersion == 1)
    }

    @Test("changing an item that does not exist is 404 item_not_found")
    func unknownItem() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/nope", token: environment.ops,
                json: ["price": 100])
            #expect(response.status == .notFound)
            #expect(response.errorCode == "item_not_found")
        }
    }

    @Test("ops replace a menu; the new items are served and the version moves")
    func replace() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var menu = Fixtures.menuDocument()
            if case .array(var items)? = menu["items"] {
                items.removeLast()
                menu["items"] = .array(items)
            }
            let response = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.ops, json: .object(menu))
            #expect(response.status == .ok)
            #expect(try response.json["version"] == 2)
            #expect(item(try response.json, "salad") == nil)
            #expect(item(try response.json, "latte") != nil)
        }
    }

    @Test("a bad menu gets 422 with the JSON path of the problem and the old menu stays")
    func badMenu() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var menu = Fixtures.menuDocument()
            if case .array(var items)? = menu["items"], case .object(var first) = items[0] {
                first["price"] = .double(4.5)
                items[0] = .object(first)
                menu["items"] = .array(items)
            }
            let response = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.ops, json: .object(menu))
            #expect(response.status == .unprocessableContent)
            #expect(response.errorField == "items[0].price")
            #expect(try response.json["error", "problems"] == nil)  // one problem: no list
            if case .array(var items)? = menu["items"], case .object(var second) = items[1] {
                second.removeValue(forKey: "station")
                items[1] = .object(second)
                menu["items"] = .array(items)
            }
            let two = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.ops, json: .object(menu))
            #expect(try two.json["error", "problems", 1, "field"] == "items[1].station")
            let kiosk = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                json: .object(Fixtures.menuDocument()))
            #expect(kiosk.status == .forbidden)
            let missing = try await client.send(
                .put, "/v1/cafes/nowhere/menu", token: environment.ops,
                json: .object(Fixtures.menuDocument()))
            #expect(missing.status == .notFound)
        }
        #expect(try await environment.stores.cafes.menu(cafeID: "testcafe")?.menu.items.count == 3)
    }
}
