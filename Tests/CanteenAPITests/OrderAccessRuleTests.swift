import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// One rule for every route about one order: who cannot read it cannot cancel it, follow it or
/// read its events, and is refused the same way on each.
@Suite("Per-order routes share one access rule")
struct OrderAccessRuleTests {
    static let order: JSONValue = [
        "cafeId": "testcafe",
        "lines": [["itemId": "latte", "quantity": 1, "options": ["small"], "note": "door code 4711"]],
        "customer": ["name": "Ana Secret", "userId": "u-secret"],
    ]

    @Test(
        "another kiosk of the café, another café's kiosk and an unbound kiosk are refused cancel as they are read",
        arguments: ["sameCafe", "otherCafe", "unbound"])
    func cancelAsRead(_ who: String) async throws {
        // Given an order placed by the test café's kiosk
        let environment = try await TestEnvironment.make()
        let tokens = environment.stores.tokens
        let stranger =
            switch who {
            case "sameCafe": try await tokens.createToken(role: .kiosk, cafeID: "testcafe", name: "second").secret
            case "otherCafe": try await tokens.createToken(role: .kiosk, cafeID: "othercafe", name: "other").secret
            default: environment.kiosk
            }
        try await withRouter(environment) { client in
            let placed = try await client.send(
                .post, "/v1/orders", token: environment.boundKiosk, json: Self.order,
                headers: [HTTPField.Name("Idempotency-Key")!: "rule-1"])
            #expect(placed.status == .created)
            let id = try #require(try placed.json["id"]?.stringValue)
            // When another kiosk reads it, follows it, reads its events and cancels it
            let read = try await client.send(.get, "/v1/orders/\(id)", token: stranger)
            let follow = try await client.send(
                .get, "/v1/orders/\(id)?wait=1", token: stranger,
                headers: [.ifNoneMatch: placed.headers[.eTag] ?? "W/\"1\""])
            let events = try await client.send(.get, "/v1/orders/\(id)/events", token: stranger)
            let cancel = try await client.send(.post, "/v1/orders/\(id)/cancel", token: stranger)
            // Then each is the same refusal, which tells nothing of the order
            #expect(read.status == .forbidden)
            for answer in [follow, events, cancel] {
                #expect(answer.status == read.status)
                #expect(answer.errorCode == read.errorCode)
                #expect(try answer.json["error", "message"] == read.json["error", "message"])
                let body = String(buffer: answer.body)
                #expect(!body.contains("Ana Secret") && !body.contains("u-secret") && !body.contains("4711"), "\(body)")
            }
            // And nothing changed
            let after = try await client.send(.get, "/v1/orders/\(id)", token: environment.ops)
            #expect(try after.json["status"] == "placed")
        }
    }

    @Test("the kiosk that placed an order and ops may cancel it; its café's kitchen reads it but may not cancel")
    func allowed() async throws {
        let environment = try await TestEnvironment.make()
        let kitchen = try await environment.stores.tokens.createToken(role: .kitchen, cafeID: "testcafe", name: "k")
            .secret
        try await withRouter(environment) { client in
            var ids: [String] = []
            for key in ["rule-a", "rule-b"] {
                let placed = try await client.send(
                    .post, "/v1/orders", token: environment.boundKiosk, json: Self.order,
                    headers: [HTTPField.Name("Idempotency-Key")!: key])
                ids.append(try #require(try placed.json["id"]?.stringValue))
            }
            #expect(try await client.send(.get, "/v1/orders/\(ids[0])", token: kitchen).status == .ok)
            let byKitchen = try await client.send(.post, "/v1/orders/\(ids[0])/cancel", token: kitchen)
            #expect(byKitchen.status == .forbidden)
            let byPlacer = try await client.send(.post, "/v1/orders/\(ids[0])/cancel", token: environment.boundKiosk)
            #expect(byPlacer.status == .ok)
            #expect(try byPlacer.json["status"] == "cancelled")
            let byOps = try await client.send(.post, "/v1/orders/\(ids[1])/cancel", token: environment.ops)
            #expect(byOps.status == .ok)
        }
    }

    @Test("an unknown order is 404 on cancel as on read")
    func unknown() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let read = try await client.send(.get, "/v1/orders/ord_nothing", token: environment.boundKiosk)
            let cancel = try await client.send(.post, "/v1/orders/ord_nothing/cancel", token: environment.boundKiosk)
            #expect(read.status == .notFound)
            #expect(cancel.status == .notFound)
            #expect(cancel.errorCode == read.errorCode)
        }
    }
}
