import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What the pages need of the API: a kitchen marks items sold out, a kiosk reads its café's
/// feed for the pickup board, a page learns what its token is, and the café's display settings.
@Suite("The API the screens use")
struct KitchenScreenAccessTests {
    func item(_ menu: JSONValue, _ id: String) -> JSONValue? {
        guard case .array(let categories)? = menu["categories"] else { return nil }
        for category in categories {
            guard case .array(let items)? = category["items"] else { continue }
            if let found = items.first(where: { $0["id"]?.stringValue == id }) { return found }
        }
        return nil
    }

    @Test("the café's kitchen marks an item sold out and back, and may change nothing else of the menu")
    func kitchenSoldOut() async throws {
        let environment = try await TestEnvironment.make()
        let bound = try await environment.stores.tokens.createToken(role: .kitchen, cafeID: "testcafe", name: nil)
            .secret
        let elsewhere = try await environment.stores.tokens.createToken(role: .kitchen, cafeID: "othercafe", name: nil)
            .secret
        try await withRouter(environment) { client in
            let path = "/v1/cafes/testcafe/menu/items/salad"
            let out = try await client.send(
                .patch, path, token: bound,
                json: ["soldOut": true, "soldOutUntil": "2026-11-23T23:00:00-06:00"])
            #expect(out.status == .ok)
            #expect(item(try out.json, "salad")?["unavailableReason"] == "sold_out")
            let price = try await client.send(.patch, path, token: bound, json: ["price": 1])
            #expect(price.status == .forbidden)
            #expect(price.errorField == "price")
            let both = try await client.send(.patch, path, token: bound, json: ["soldOut": false, "price": 1])
            #expect(both.status == .forbidden)
            let menu = try await client.send(.get, "/v1/cafes/testcafe/menu", token: bound)
            #expect(item(try menu.json, "salad")?["price", "amount"] == 750, "a refused change changes nothing")
            #expect(item(try menu.json, "salad")?["available"] == false)
            let otherCafe = try await client.send(.patch, path, token: elsewhere, json: ["soldOut": false])
            #expect(otherCafe.status == .forbidden)
            let kiosk = try await client.send(.patch, path, token: environment.boundKiosk, json: ["soldOut": false])
            #expect(kiosk.status == .forbidden)
            let back = try await client.send(.patch, path, token: bound, json: ["soldOut": false])
            #expect(item(try back.json, "salad")?["available"] == true)
            let replace = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: bound,
                json: .object(Fixtures.menuDocument()))
            #expect(replace.status == .forbidden)
        }
    }

    @Test("a kiosk of the café reads its ticket feed (the pickup board) but cannot move a ticket")
    func kioskReadsFeed() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.send(
                .post, "/v1/orders", token: environment.boundKiosk,
                json: [
                    "cafeId": "testcafe", "lines": [["itemId": "salad", "quantity": 1]],
                    "customer": ["name": "Noor"],
                ],
                headers: [.init("Idempotency-Key")!: "board-1"])
            #expect(order.status == .created)
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.boundKiosk)
            #expect(feed.status == .ok)
            let ticket = try #require(try feed.json["tickets", 0, "id"]?.stringValue)
            let move = try await client.send(
                .post, "/v1/tickets/\(ticket)/status", token: environment.boundKiosk,
                json: ["status": "preparing"])
            #expect(move.status == .forbidden)
            let other = try await client.send(.get, "/v1/cafes/othercafe/tickets", token: environment.boundKiosk)
            #expect(other.status == .forbidden)
        }
    }

    @Test("GET /v1/token says what the token is, never its secret; without one it is 401")
    func whoAmI() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let kiosk = try await client.send(.get, "/v1/token", token: environment.boundKiosk)
            #expect(kiosk.status == .ok)
            #expect(try kiosk.json["role"] == "kiosk")
            #expect(try kiosk.json["cafeId"] == "testcafe")
            #expect(try kiosk.json["name"] == "bound")
            #expect(!String(buffer: kiosk.body).contains(environment.boundKiosk))
            let ops = try await client.send(.get, "/v1/token", token: environment.ops)
            #expect(try ops.json["cafeId"] == .null)
            #expect(try await client.send(.get, "/v1/token").status == .unauthorized)
            #expect(try await client.send(.get, "/v1/token", token: "nope").status == .unauthorized)
        }
    }

    @Test("a café's display settings are stored, shown and replaced with the café")
    func displaySettings() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        try await withRouter(environment) { client in
            let standard = try await client.send(.get, "/v1/cafes/testcafe", token: environment.kitchen)
            #expect(
                try standard.json["display"] == [
                    "ticketWarningMinutes": 5, "ticketLateMinutes": 8, "boardReadyMinutes": 10,
                    "ticketAllowanceMinutes": 3,
                ])
            var configuration = Fixtures.cafeConfiguration()
            configuration["display"] = ["ticketWarningMinutes": 3, "ticketLateMinutes": 6, "boardReadyMinutes": 2]
            let saved = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, json: .object(configuration))
            #expect(saved.status == .ok)
            configuration["display"] = ["ticketWarningMinutes": 7, "ticketLateMinutes": 6]
            let refused = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops, json: .object(configuration))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorField == "display.ticketLateMinutes")
        }
        let reopened = try #require(try await CanteenStores.open(dataDirectory: directory).cafes.cafe(id: "testcafe"))
        #expect(
            reopened.cafe.display
                == DisplaySettings(ticketWarningMinutes: 3, ticketLateMinutes: 6, boardReadyMinutes: 2))
    }
}
