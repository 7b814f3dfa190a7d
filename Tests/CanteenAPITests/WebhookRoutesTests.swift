import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Webhook endpoints over HTTP")
struct WebhookRoutesTests {
    @Test("ops register an endpoint and see its secret once; list, read and delete it")
    func lifecycle() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let created = try await client.send(
                .post, "/v1/webhooks", token: environment.ops,
                json: [
                    "url": "https://hooks.example.com/canteen", "cafeId": "testcafe",
                    "events": ["order.ready", "order.placed", "order.ready"],
                ])
            #expect(created.status == .created)
            let id = try #require(try created.json["id"]?.stringValue)
            #expect(id.hasPrefix("whk_"))
            #expect(created.headers[.location] == "/v1/webhooks/\(id)")
            #expect(try created.json["secret"]?.stringValue?.hasPrefix("whsec_") == true)
            #expect(try created.json["events"] == ["order.placed", "order.ready"])
            #expect(try created.json["cafeId"] == "testcafe")

            let list = try await client.send(.get, "/v1/webhooks", token: environment.ops)
            #expect(try list.json["webhooks", 0, "id"] == .string(id))
            #expect(try list.json["webhooks", 0, "secret"] == nil, "the secret is shown once")
            let read = try await client.send(.get, "/v1/webhooks/\(id)", token: environment.ops)
            #expect(try read.json["url"] == "https://hooks.example.com/canteen")
            #expect(try read.json["secret"] == nil)

            #expect(try await client.send(.delete, "/v1/webhooks/\(id)", token: environment.ops).status == .noContent)
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/webhooks/\(id)"), (.delete, "/v1/webhooks/\(id)"),
                (.post, "/v1/webhooks/\(id)/rotate-secret"), (.get, "/v1/webhooks/\(id)/deliveries"),
            ] {
                let gone = try await client.send(method, path, token: environment.ops)
                #expect(gone.status == .notFound, "\(method) \(path)")
                #expect(gone.errorCode == "webhook_not_found")
            }
        }
    }

    @Test("a registration that is not right is refused naming the field, and nothing is stored")
    func validation() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let cases: [(JSONValue, String, String)] = [
                (["url": "ftp://hooks.example.com/", "events": ["order.ready"]], "invalid_webhook_url", "url"),
                (["url": "hooks.example.com/canteen", "events": ["order.ready"]], "invalid_webhook_url", "url"),
                (
                    ["url": "https://user:secret@hooks.example.com/", "events": ["order.ready"]], "invalid_webhook_url",
                    "url"
                ),
                (["url": "http:///nohost", "events": ["order.ready"]], "invalid_webhook_url", "url"),
                (
                    ["url": "https://hooks.example.com/", "events": ["order.ready", "order.eaten"]],
                    "unknown_event_type", "events[1]"
                ),
                (
                    ["url": "https://hooks.example.com/", "events": ["order.preparing"]], "unknown_event_type",
                    "events[0]"
                ),
                (["url": "https://hooks.example.com/", "events": []], "invalid_field", "events"),
                (["url": "https://hooks.example.com/", "events": [7]], "invalid_type", "events[0]"),
                (["events": ["order.ready"]], "missing_field", "url"),
                (
                    ["url": "https://hooks.example.com/", "events": ["order.ready"], "secret": "mine"], "unknown_field",
                    "secret"
                ),
                (
                    ["url": "https://hooks.example.com/", "events": ["order.ready"], "cafeId": "atlantis"],
                    "unknown_cafe", "cafeId"
                ),
            ]
            for (body, code, field) in cases {
                let refused = try await client.send(.post, "/v1/webhooks", token: environment.ops, json: body)
                #expect(refused.status.code == 422 || refused.status.code == 400, "\(body)")
                #expect(refused.errorCode == code, "\(body)")
                #expect(refused.errorField == field, "\(body)")
            }
            let private10 = try await client.send(
                .post, "/v1/webhooks", token: environment.ops,
                json: ["url": "http://10.1.2.3:8080/hook", "events": ["order.ready"]])
            #expect(private10.status.code == 422, "a private address needs ops to allow its range")
            #expect(private10.errorCode == "webhook_address_not_allowed")
            #expect(private10.errorField == "url")
            #expect(try await environment.rowCount("webhookEndpoint") == 0)
        }
        // A company's own network, allowed by ops (`--webhook-allow-private 10.0.0.0/8`).
        let allowing = try await TestEnvironment.make(
            webhookPolicy: WebhookAddressPolicy(allowing: [try IPAddressRange("10.0.0.0/8")]))
        try await withRouter(allowing) { client in
            let private10 = try await client.send(
                .post, "/v1/webhooks", token: allowing.ops,
                json: ["url": "http://10.1.2.3:8080/hook", "events": ["order.ready"]])
            #expect(private10.status == .created)
            let loopback = try await client.send(
                .post, "/v1/webhooks", token: allowing.ops,
                json: ["url": "http://127.0.0.1:8080/hook", "events": ["order.ready"]])
            #expect(loopback.errorCode == "webhook_address_not_allowed", "only the range allowed")
            #expect(try await allowing.rowCount("webhookEndpoint") == 1)
        }
    }

    @Test("only ops manage webhooks")
    func opsOnly() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for token in [environment.kiosk, environment.kitchen] {
                let refused = try await client.send(
                    .post, "/v1/webhooks", token: token,
                    json: ["url": "https://hooks.example.com/", "events": ["order.ready"]])
                #expect(refused.status == .forbidden)
                #expect(try await client.send(.get, "/v1/webhooks", token: token).status == .forbidden)
            }
            #expect(try await client.send(.get, "/v1/webhooks").status == .unauthorized)
            let limit = try await client.send(.get, "/v1/webhooks/whk_x/deliveries?limit=0", token: environment.ops)
            #expect(limit.errorCode == "invalid_query")
        }
    }

    @Test("an endpoint is sent only the events committed after it was registered, of its café and types")
    func fanOutFilters() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        try await withRouter(environment) { client in
            let early = try await client.placed(saladOrder(name: "Early"), token: environment.kiosk)
            let hook = try await client.registerWebhook(
                url: "http://127.0.0.1:9/", events: ["order.ready"], cafeID: "testcafe",
                token: environment.ops)
            let everything = try await client.registerWebhook(
                url: "http://127.0.0.1:9/",
                events: [
                    "order.placed", "order.ready", "order.picked_up",
                    "order.cancelled",
                ], token: environment.ops)
            let order = try await client.placed(saladOrder(name: "Later"), token: environment.kiosk)
            let other = try await client.placed(
                orderBody(cafe: "othercafe", lines: [["itemId": "salad", "quantity": 1]]),
                token: environment.kiosk)
            for placed in [early, order, other] {
                for status in ["preparing", "ready"] {
                    try await client.move(try #require(placed.tickets["cold"]), to: status, token: environment.kitchen)
                }
            }
            // One round of the repository, as the delivery service runs it (taking nothing).
            _ = try await environment.stores.webhooks.deliveryRound(recording: [], claim: 0, now: Date(), lease: 10)
            let ready = try await environment.stores.webhooks.deliveries(endpointID: hook.id, limit: 50)
            #expect(Set(ready.map(\.event.orderID)) == [early.id, order.id])
            #expect(ready.allSatisfy { $0.event.type == .ready })
            let all = try await environment.stores.webhooks.deliveries(endpointID: everything.id, limit: 50)
            #expect(
                all.map(\.event.type).sorted { $0.rawValue < $1.rawValue } == [
                    .placed, .placed, .ready, .ready, .ready,
                ])
            #expect(!all.contains { $0.event.orderID == early.id && $0.event.type == .placed })
            // Of one order only the earliest is pending: the ready event waits for the placed one.
            let later = all.filter { $0.event.orderID == order.id }.sorted { $0.event.sequence < $1.event.sequence }
            #expect(later.map(\.state) == [.pending, .pending])
            #expect(later[0].nextAttemptAt != nil && later[1].nextAttemptAt == nil)
        }
    }

    @Test("an endpoint has at most so many open deliveries; the rest of its events wait in the outbox, none lost")
    func openDeliveriesCap() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let store = WebhookStore(database: environment.stores.sqliteDatabase!, openPerEndpoint: 3)
        try await withRouter(environment) { client in
            let hook = try await client.registerWebhook(
                url: "http://127.0.0.1:9/", events: ["order.placed"], token: environment.ops)
            for number in 0..<5 {
                _ = try await client.placed(saladOrder(name: "N\(number)"), token: environment.kiosk)
            }
            let now = Date()
            let first = try await store.deliveryRound(recording: [], claim: 10, now: now, lease: 60)
            #expect(first.jobs.count == 3)
            #expect(try await store.deliveries(endpointID: hook.id, limit: 50).count == 3)

            // Two delivered: room for the last two events, in order.
            let results = first.jobs.prefix(2).map { job in
                WebhookAttemptResult(
                    endpointID: job.endpointID, eventSequence: job.event.sequence, leasedUntil: job.leasedUntil,
                    attempt: WebhookAttempt(attemptedAt: now, statusCode: 204, latencyMilliseconds: 1, error: nil),
                    next: .delivered)
            }
            let second = try await store.deliveryRound(recording: results, claim: 10, now: now, lease: 60)
            #expect(second.jobs.count == 2)
            let all = try await store.deliveries(endpointID: hook.id, limit: 50)
            #expect(all.count == 5)
            #expect(Set(all.map(\.event.id)).count == 5)
            #expect(all.filter { $0.state == .delivered }.count == 2)
            let sequences = (first.jobs + second.jobs).map(\.event.sequence)
            #expect(sequences == sequences.sorted())
            // A round commits without its own fsync, and orders are still committed with one.
            let synchronous = try await environment.stores.sqliteDatabase!.writer.write { db in
                try Int.fetchOne(db, sql: "PRAGMA synchronous")
            }
            #expect(synchronous == 2, "synchronous = FULL for the orders that follow")
        }
    }
}
