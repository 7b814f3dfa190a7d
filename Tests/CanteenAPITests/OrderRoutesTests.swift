import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// A latte and a salad for Ada, picked up at `start` (RFC 3339) or as soon as possible.
func orderBody(cafe: String = "testcafe", start: String? = nil, lines: JSONValue? = nil, name: String = "Ada")
    -> JSONValue
{
    var body: [String: JSONValue] = [
        "cafeId": .string(cafe),
        "lines": lines ?? [
            ["itemId": "latte", "quantity": 2, "options": ["large", "shot"]],
            ["itemId": "salad", "quantity": 1, "note": "dressing on the side"],
        ],
        "customer": ["name": .string(name), "userId": "u-ada"],
    ]
    if let start { body["pickup"] = ["start": .string(start)] }
    return .object(body)
}

extension TestClientProtocol {
    func placeOrder(
        _ body: JSONValue, token: String, key: String? = UUID().uuidString,
        acceptLanguage: String? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
        if let acceptLanguage { headers[.acceptLanguage] = acceptLanguage }
        return try await send(.post, "/v1/orders", token: token, json: body, headers: headers)
    }
}

@Suite("Orders over HTTP")
struct OrderRoutesTests {
    @Test("an order is priced, taxed, numbered and given the earliest window after the lead time")
    func place() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.placeOrder(orderBody(), token: environment.kiosk)
            #expect(response.status == .created)
            let order = try response.json
            // (450 + 60 + 75) × 2 + 750 = 1920; tax 10.25 % = 196.8 → 197
            #expect(order["subtotal"] == ["amount": 1920, "currency": "USD", "formatted": "$19.20"])
            #expect(order["tax", "amount"] == 197)
            #expect(order["total", "amount"] == 2117)
            #expect(order["lines", 0, "unitPrice", "amount"] == 585)
            #expect(order["number"] == 1)
            #expect(order["status"] == "placed")
            #expect(order["pickup", "start"] == "2026-11-23T09:15:00-06:00")
            #expect(order["pickup", "end"] == "2026-11-23T09:30:00-06:00")
            guard case .array(let tickets)? = order["tickets"] else { Issue.record("no tickets"); return }
            #expect(Set(tickets.compactMap { $0["station"]?.stringValue }) == ["bar", "cold"])
            let id = try #require(order["id"]?.stringValue)
            #expect(response.headers[.location] == "/v1/orders/\(id)")
            let second = try await client.placeOrder(orderBody(), token: environment.kiosk)
            #expect(try second.json["number"] == 2)
        }
    }

    @Test("the same key and body replays the first response; another body under the key is refused")
    func idempotentReplay() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let first = try await client.placeOrder(orderBody(), token: environment.kiosk, key: "key-1")
            let replay = try await client.placeOrder(orderBody(), token: environment.kiosk, key: "key-1")
            #expect(replay.status == first.status)
            #expect(replay.body == first.body)
            #expect(replay.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(first.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            let other = try await client.placeOrder(orderBody(name: "Grace"), token: environment.kiosk, key: "key-1")
            #expect(other.status == .unprocessableContent)
            #expect(other.errorCode == "idempotency_key_reused")
            // Keys belong to a token: another kiosk may use the same key for its own order.
            let elsewhere = try await client.placeOrder(orderBody(), token: environment.boundKiosk, key: "key-1")
            #expect(elsewhere.status == .created)
        }
        let orders = try await environment.rowCount("customerOrder")
        #expect(orders == 2)
    }

    @Test("an order's answer says its language; a replay keeps the first answer's, whatever is asked")
    func replayLanguage() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let first = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: "key-fr", acceptLanguage: "fr-CA")
            #expect(first.status == .created)
            #expect(first.headers[.contentLanguage] == "fr")
            #expect(first.headers[.vary] == "Accept-Language")
            #expect(try first.json["statusLabel"] == "Passée")  // Locales/fr.json
            let replay = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: "key-fr", acceptLanguage: "ja")
            #expect(replay.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(replay.headers[.contentLanguage] == "fr")
            #expect(replay.body == first.body)
        }
    }

    @Test("without an Idempotency-Key, or with one over 255 characters, the order is refused with 400")
    func keyRequired() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let missing = try await client.placeOrder(orderBody(), token: environment.kiosk, key: nil)
            #expect(missing.status == .badRequest)
            #expect(missing.errorCode == "idempotency_key_missing")
            let long = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: String(repeating: "k", count: 256))
            #expect(long.status == .badRequest)
            let edge = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: String(repeating: "k", count: 255))
            #expect(edge.status == .created)
        }
    }

    @Test("a key whose first request is still running gets 409 idempotency_key_in_use")
    func inFlight() async throws {
        let environment = try await TestEnvironment.make()
        let gated = GatedOrderRepository(environment.stores.orders)
        var services = environment.services
        services.orders = gated
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.router) { client in
            try await withThrowingTaskGroup(of: TestResponse.self) { group in
                group.addTask { try await client.placeOrder(orderBody(), token: environment.kiosk, key: "slow") }
                await gated.waitUntilEntered()
                let second = try await client.placeOrder(orderBody(), token: environment.kiosk, key: "slow")
                #expect(second.status == .conflict)
                #expect(second.errorCode == "idempotency_key_in_use")
                gated.release()
                let first = try await group.next()
                #expect(first?.status == .created)
            }
            gated.release()  // let the retry through the gate too
            let retry = try await client.placeOrder(orderBody(), token: environment.kiosk, key: "slow")
            #expect(retry.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
        }
    }

    @Test("200 concurrent orders for a window of capacity 20: exactly 20 succeed, the rest are pickup_window_full")
    func capacityUnderConcurrency() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let outcomes = Tally()
        try await withRouter(environment) { sharedClient in
            let client = sharedClient
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let body = orderBody(
                            start: "2026-11-23T12:00:00-06:00",
                            lines: [["itemId": "salad", "quantity": 1]], name: "guest \(index)")
                        let response = try? await client.placeOrder(body, token: environment.kiosk)
                        let outcome = response.map { "\($0.status.code) \($0.errorCode ?? "")" } ?? "transport error"
                        outcomes.add(outcome)
                    }
                }
            }
            let windows = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows?date=2026-11-23", token: environment.kiosk)
            guard case .array(let list)? = try windows.json["windows"] else { Issue.record("no windows"); return }
            let noon = list.first { $0["start"] == "2026-11-23T12:00:00-06:00" }
            #expect(noon?["remaining"] == 0)
            #expect(noon?["capacity"] == 20)
        }
        #expect(outcomes.snapshot == ["201 ": 20, "409 pickup_window_full": 180])
        let stored = try await environment.rowCount("customerOrder")
        #expect(stored == 20)
    }

    @Test(
        "orders that break a rule are refused with the rule's code and field",
        arguments: [
            (orderBody(cafe: "nowhere"), 422, "unknown_cafe", "cafeId"),
            (orderBody(lines: [["itemId": "pizza", "quantity": 1]]), 422, "unknown_item", "lines[0].itemId"),
            (
                orderBody(lines: [["itemId": "latte", "quantity": 1, "options": ["small", "oat"]]]), 422,
                "unknown_option", "lines[0].options[1]"
            ),
            (orderBody(lines: [["itemId": "latte", "quantity": 1]]), 422, "invalid_selection", "lines[0].options"),
            (orderBody(start: "2026-11-23T12:05:00-06:00"), 422, "pickup_window_unavailable", "pickup.start"),
            (orderBody(start: "2026-11-23T09:00:00-06:00"), 422, "pickup_window_unavailable", "pickup.start"),
            (orderBody(start: "2026-11-28T12:00:00-06:00"), 422, "cafe_closed", "pickup"),
            (
                orderBody(start: "2026-11-23T11:00:00-06:00", lines: [["itemId": "burrito", "quantity": 1]]), 409,
                "item_unavailable", "lines[0].itemId"
            ),
        ] as [(JSONValue, Int, String, String)])
    func rules(body: JSONValue, status: Int, code: String, field: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.placeOrder(body, token: environment.kiosk)
            #expect(response.status.code == status)
            #expect(response.errorCode == code)
            #expect(response.errorField == field)
        }
        let stored = try await environment.rowCount("customerOrder")
        #expect(stored == 0)
    }

    @Test("a sold-out item cannot be ordered")
    func soldOut() async throws {
        let environment = try await TestEnvironment.make()
        _ = try await environment.stores.cafes.updateItem(
            cafeID: "testcafe", itemID: "salad", changes: [.soldOut(true, until: nil)])
        try await withRouter(environment) { client in
            let response = try await client.placeOrder(orderBody(), token: environment.kiosk)
            #expect(response.status == .conflict)
            #expect(response.errorCode == "item_unavailable")
            #expect(response.errorField == "lines[1].itemId")
        }
    }

    @Test("a kitchen token cannot order; a bound kiosk cannot order for another café")
    func roles() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            #expect(try await client.placeOrder(orderBody(), token: environment.kitchen).status == .forbidden)
            let other = try await client.placeOrder(orderBody(cafe: "othercafe"), token: environment.boundKiosk)
            #expect(other.status == .forbidden)
        }
    }

    @Test("an order reads back with its status; cancelling frees its capacity; a picked-up order cannot be cancelled")
    func readAndCancel() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let start = "2026-11-23T12:00:00-06:00"
            let placed = try await client.placeOrder(orderBody(start: start), token: environment.kiosk)
            let id = try #require(try placed.json["id"]?.stringValue)
            let read = try await client.send(.get, "/v1/orders/\(id)", token: environment.kiosk)
            #expect(try read.json["status"] == "placed")
            #expect(try read.json["total"] == (try placed.json["total"]))

            func remainingAtNoon() async throws -> JSONValue? {
                let windows = try await client.send(
                    .get, "/v1/cafes/testcafe/pickup-windows?date=2026-11-23", token: environment.kiosk)
                guard case .array(let list)? = try windows.json["windows"] else { return nil }
                return list.first { $0["start"] == .string(start) }?["remaining"]
            }
            #expect(try await remainingAtNoon() == 19)
            let cancelled = try await client.send(.post, "/v1/orders/\(id)/cancel", token: environment.kiosk)
            #expect(cancelled.status == .ok)
            #expect(try cancelled.json["status"] == "cancelled")
            #expect(try await remainingAtNoon() == 20)

            let second = try await client.placeOrder(
                orderBody(lines: [["itemId": "salad", "quantity": 1]]), token: environment.kiosk)
            let secondID = try #require(try second.json["id"]?.stringValue)
            let ticket = try #require(try second.json["tickets", 0, "id"]?.stringValue)
            for status in ["preparing", "ready", "picked_up"] {
                let moved = try await client.send(
                    .post, "/v1/tickets/\(ticket)/status", token: environment.kitchen,
                    json: ["status": .string(status)])
                #expect(moved.status == .ok)
            }
            #expect(
                try await client.send(.get, "/v1/orders/\(secondID)", token: environment.ops).json["status"]
                    == "picked_up")
            let refused = try await client.send(.post, "/v1/orders/\(secondID)/cancel", token: environment.ops)
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "order_not_cancellable")
            let missing = try await client.send(.get, "/v1/orders/ord_nope", token: environment.ops)
            #expect(missing.status == .notFound)
        }
    }

    @Test("pickup windows list start, end, capacity and remaining in café time; a bad date is 422")
    func pickupWindows() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/cafes/testcafe/pickup-windows", token: environment.kiosk)
            #expect(response.status == .ok)
            let body = try response.json
            #expect(body["date"] == "2026-11-23")
            #expect(body["windows", 0, "start"] == "2026-11-23T09:15:00-06:00")
            #expect(body["windows", 0, "capacity"] == 20)
            let saturday = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows?date=2026-11-28", token: environment.kiosk)
            #expect(try saturday.json["windows"] == [])
            let bad = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows?date=tomorrow", token: environment.kiosk)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.errorField == "date")
        }
    }

    @Test("idempotency records older than 24 hours are purged, younger ones kept")
    func purge() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk, key: "old")
        }
        let orders = environment.stores.idempotency
        #expect(try await orders.purgeIdempotencyKeys(createdBefore: environment.clock.now - 24 * 3600) == 0)
        #expect(try await orders.purgeIdempotencyKeys(createdBefore: environment.clock.now + 1) == 1)
    }
}

/// The real order store, with `placeOrder` held at its start until the test releases it.
final class GatedOrderRepository: OrderRepository, @unchecked Sendable {
    let base: any OrderRepository
    private let entered = AsyncStream<Void>.makeStream()
    private let gate = AsyncStream<Void>.makeStream()

    init(_ base: any OrderRepository) { self.base = base }

    func waitUntilEntered() async { for await _ in entered.stream { return } }
    func release() { gate.continuation.yield() }

    func placeOrder(_ request: OrderRequest, key: IdempotencyKey?) async throws -> OrderPlacement {
        entered.continuation.yield()
        for await _ in gate.stream { break }
        return try await base.placeOrder(request, key: key)
    }
    func order(id: String) async throws -> Order? { try await base.order(id: id) }
    func cancelOrder(id: String) async throws -> Order { try await base.cancelOrder(id: id) }
    func latestOrderCafeID(userID: String) async throws -> String? {
        try await base.latestOrderCafeID(userID: userID)
    }
}
