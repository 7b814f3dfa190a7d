import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenNotify
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// Short delays for tests: retries after 50 ms (doubling up to 400 ms), and the product's own 10 s
/// timeout (a busy machine may take seconds to answer); the receivers on loopback are allowed.
let quickDelivery = WebhookDeliverySettings(
    timeout: .seconds(10), firstRetryDelay: .milliseconds(50),
    maxRetryDelay: .milliseconds(400), maxConcurrentDeliveries: 16,
    pollInterval: .milliseconds(200), roundSpacing: .milliseconds(10),
    addressPolicy: TestEnvironment.loopbackWebhooks)

/// Runs the delivery service over the environment's stores while `body` runs.
func withDeliveryService<Value: Sendable>(
    _ environment: TestEnvironment, settings: WebhookDeliverySettings = quickDelivery,
    resolver: any HostResolver = SystemHostResolver(),
    _ body: @Sendable () async throws -> Value
) async throws -> Value {
    let renderer = OrderEventRenderer(services: environment.services)
    var logger = Logger(label: "webhooks-test")
    logger.logLevel = .warning
    let service = WebhookDeliveryService(
        webhooks: environment.stores.webhooks, events: environment.stores.orderEvents,
        render: { try await renderer.webhookBody($0) }, settings: settings,
        resolver: resolver, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let value = try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return value
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `limit`; false when it never did.
func eventually(within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

extension TestClientProtocol {
    /// Registers a webhook as ops and returns its id and secret.
    func registerWebhook(url: String, events: [String], cafeID: String? = nil, token: String) async throws -> (
        id: String, secret: String
    ) {
        var body: [String: JSONValue] = ["url": .string(url), "events": .array(events.map { .string($0) })]
        if let cafeID { body["cafeId"] = .string(cafeID) }
        let response = try await send(.post, "/v1/webhooks", token: token, json: .object(body))
        try #require(response.status == .created, "registering: \(String(buffer: response.body))")
        return (
            try #require(try response.json["id"]?.stringValue), try #require(try response.json["secret"]?.stringValue)
        )
    }
}

@Suite("Webhook deliveries to a real receiver")
struct WebhookDeliveryTests {
    @Test(
        "a receiver that fails twice then accepts gets the event accepted exactly once, signed, with one id throughout")
    func failsTwiceThenAccepts() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver { request in request.earlier < 2 ? .status(500) : .status(200) }
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                let hook = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hooks/canteen",
                    events: ["order.placed"], token: environment.ops)
                try await withDeliveryService(environment) {
                    let order = try await client.placed(saladOrder(), token: environment.kiosk)
                    #expect(try await eventually { receiver.accepted.count == 1 })
                    let requests = receiver.requests
                    #expect(requests.count == 3)
                    #expect(Set(requests.map(\.eventID)).count == 1)
                    #expect(requests.allSatisfy { $0.eventType == "order.placed" && $0.orderID == order.id })
                    #expect(
                        requests.allSatisfy {
                            WebhookSignature.verify(
                                header: $0.signature, body: $0.body, secret: hook.secret, now: Date())
                        })
                    #expect(
                        !WebhookSignature.verify(
                            header: requests[0].signature, body: requests[0].body + [32],
                            secret: hook.secret, now: Date()), "a changed body fails the check")
                    let body = try JSONValue.parse(Data(requests[2].body))
                    #expect(body["id"] == .string(requests[2].eventID))
                    #expect(body["type"] == "order.placed")
                    #expect(body["createdAt"] == "2026-11-23T15:00:00Z")
                    #expect(body["data", "status"] == "placed")
                    #expect(body["data", "total", "currency"] == "USD")

                    #expect(
                        try await eventually {
                            let listing = try await client.send(
                                .get, "/v1/webhooks/\(hook.id)/deliveries", token: environment.ops)
                            return try listing.json["deliveries", 0, "state"] == "delivered"
                        })
                    let listing = try await client.send(
                        .get, "/v1/webhooks/\(hook.id)/deliveries", token: environment.ops)
                    let delivery = try #require(try listing.json["deliveries", 0])
                    #expect(delivery["eventId"] == .string(requests[0].eventID))
                    #expect(delivery["attempts", 0, "statusCode"] == 500)
                    #expect(delivery["attempts", 0, "error"]?.stringValue?.hasPrefix("HTTP 500") == true)
                    #expect(delivery["attempts", 1, "statusCode"] == 500)
                    #expect(delivery["attempts", 2, "statusCode"] == 200)
                    #expect(delivery["attempts", 2, "error"] == nil)
                    #expect(delivery["attempts", 2, "latencyMs"]?.intValue != nil)
                    #expect(delivery["attempts", 3] == nil)
                }
            }
        }
    }

    @Test("events of one order arrive in order; a failing order holds back only its own events")
    func orderPerOrder() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let blocked = Mutex<String?>(nil)
        let receiver = WebhookReceiver { request in
            blocked.withLock { $0 } == request.orderID ? .status(503) : .status(200)
        }
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                _ = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hook", events: ["order.placed", "order.ready"],
                    token: environment.ops)
                let first = try await client.placed(saladOrder(name: "First"), token: environment.kiosk)
                blocked.withLock { $0 = first.id }
                let second = try await client.placed(saladOrder(name: "Second"), token: environment.kiosk)
                for order in [first, second] {
                    for status in ["preparing", "ready"] {
                        try await client.move(
                            try #require(order.tickets["cold"]), to: status, token: environment.kitchen)
                    }
                }
                try await withDeliveryService(environment) {
                    let secondDelivered = try await eventually {
                        receiver.accepted.filter { $0.orderID == second.id }.count == 2
                    }
                    #expect(secondDelivered)
                    let firstTried = try await eventually {
                        receiver.requests.filter { $0.orderID == first.id }.count >= 3
                    }
                    #expect(firstTried)
                    let tried = receiver.requests.filter { $0.orderID == first.id }
                    #expect(
                        tried.allSatisfy { $0.eventType == "order.placed" }, "the ready event waits for the placed one")
                    blocked.withLock { $0 = nil }
                    let firstDelivered = try await eventually {
                        receiver.accepted.filter { $0.orderID == first.id }.count == 2
                    }
                    #expect(firstDelivered)
                }
                for order in [first, second] {
                    let types = receiver.accepted.filter { $0.orderID == order.id }.map(\.eventType)
                    #expect(types == ["order.placed", "order.ready"])
                }
            }
        }
    }

    @Test("an attempt that starts late gets less than the timeout: it always ends two seconds before its lease")
    func attemptEndsBeforeItsLease() {
        let settings = WebhookDeliverySettings(timeout: .seconds(10))
        #expect(settings.lease == .seconds(12))
        let leasedUntil = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(settings.attemptTimeout(leasedUntil: leasedUntil, now: leasedUntil - 12) == .seconds(10))
        #expect(
            settings.attemptTimeout(leasedUntil: leasedUntil, now: leasedUntil - 30) == .seconds(10),
            "never more than the timeout")
        #expect(settings.attemptTimeout(leasedUntil: leasedUntil, now: leasedUntil - 5.5) == .milliseconds(3_500))
        #expect(settings.attemptTimeout(leasedUntil: leasedUntil, now: leasedUntil - 1) == .zero)
        #expect(settings.attemptTimeout(leasedUntil: leasedUntil, now: leasedUntil + 60) == .zero)
    }

    @Test("a redirect is not followed and counts as a failed attempt; a receiver slower than the timeout is retried")
    func redirectsAndTimeouts() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver { request in
            switch request.path {
            case "/moved": .redirect("/elsewhere")
            case "/elsewhere": .status(200)
            default: request.earlier == 0 ? .delayed(.seconds(12), 200) : .status(200)
            }
        }
        // The timeout is long enough for a loaded machine to answer the redirect, and far below the slow answer.
        let settings = WebhookDeliverySettings(
            timeout: .seconds(4), firstRetryDelay: .milliseconds(50),
            maxRetryDelay: .milliseconds(200), pollInterval: .milliseconds(200),
            roundSpacing: .milliseconds(10),
            addressPolicy: TestEnvironment.loopbackWebhooks)
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                let moved = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/moved", events: ["order.placed"],
                    token: environment.ops)
                let slow = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/slow", events: ["order.placed"],
                    token: environment.ops)
                try await withDeliveryService(environment, settings: settings) {
                    _ = try await client.placed(saladOrder(), token: environment.kiosk)
                    #expect(try await eventually { receiver.requests.filter { $0.path == "/moved" }.count >= 2 })
                    #expect(try await eventually { receiver.accepted.contains { $0.path == "/slow" } })
                    #expect(receiver.requests.filter { $0.path == "/elsewhere" }.isEmpty, "redirects are not followed")

                    // The 302 is recorded as a failed attempt (on a loaded machine an earlier attempt may
                    // have hit the 500 ms timeout first, so any of the first attempts may hold it).
                    #expect(
                        try await eventually {
                            let redirected = try await client.send(
                                .get, "/v1/webhooks/\(moved.id)/deliveries",
                                token: environment.ops)
                            return try (0..<4).contains {
                                try redirected.json["deliveries", 0, "attempts", $0, "statusCode"] == 302
                            }
                        })
                    let redirected = try await client.send(
                        .get, "/v1/webhooks/\(moved.id)/deliveries", token: environment.ops)
                    #expect(try redirected.json["deliveries", 0, "state"] == "pending")
                    #expect(
                        try await eventually {
                            let timedOut = try await client.send(
                                .get, "/v1/webhooks/\(slow.id)/deliveries", token: environment.ops)
                            return try timedOut.json["deliveries", 0, "state"] == "delivered"
                        })
                    // The slow answer's attempt timed out (no status) and a later one delivered. On a loaded
                    // machine an attempt before it may have failed otherwise, so it is looked for among them.
                    let timedOut = try await client.send(
                        .get, "/v1/webhooks/\(slow.id)/deliveries", token: environment.ops)
                    guard case .array(let attempts)? = try timedOut.json["deliveries", 0, "attempts"] else {
                        Issue.record("no attempts: \(String(buffer: timedOut.body))")
                        return
                    }
                    let text = String(buffer: timedOut.body)
                    #expect(
                        attempts.contains { attempt in
                            attempt["statusCode"] == nil && attempt["error"]?.stringValue?.contains("timed out") == true
                        }, "\(text)")
                    #expect(attempts.last?["statusCode"] == 200, "\(text)")
                }
            }
        }
    }

    @Test("after a rotation both secrets sign for the overlap; a redelivery sends the same event id again")
    func rotationAndRedelivery() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver()
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                let hook = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hook", events: ["order.placed"],
                    token: environment.ops)
                environment.clock.set(Date())  // the overlap is judged by the delivery service's (real) clock
                let rotated = try await client.send(
                    .post, "/v1/webhooks/\(hook.id)/rotate-secret", token: environment.ops)
                #expect(rotated.status == .ok)
                let newSecret = try #require(try rotated.json["secret"]?.stringValue)
                #expect(newSecret != hook.secret && newSecret.hasPrefix("whsec_"))
                let expires = try #require(try rotated.json["previousSecretExpiresAt"]?.stringValue)
                #expect(RFC3339.parse(expires).map { abs($0.timeIntervalSinceNow - 86_400) < 120 } == true)
                environment.clock.set(Fixtures.chicagoMonday(hour: 9))

                try await withDeliveryService(environment) {
                    _ = try await client.placed(saladOrder(), token: environment.kiosk)
                    let arrived = try await eventually { receiver.accepted.count == 1 }
                    try #require(arrived)
                    let delivered = receiver.accepted[0]
                    #expect(delivered.signature.components(separatedBy: ",v1=").count == 3, "one v1 per secret")
                    for secret in [hook.secret, newSecret] {
                        #expect(
                            WebhookSignature.verify(
                                header: delivered.signature, body: delivered.body, secret: secret,
                                now: Date()))
                    }
                    #expect(
                        !WebhookSignature.verify(
                            header: delivered.signature, body: delivered.body,
                            secret: "whsec_someone-else", now: Date()))

                    let again = try await client.send(
                        .post, "/v1/webhooks/\(hook.id)/deliveries/\(delivered.eventID)/redeliver",
                        token: environment.ops)
                    #expect(again.status == .accepted)
                    #expect(try again.json["state"] == "pending")
                    #expect(try await eventually { receiver.accepted.count == 2 })
                    #expect(receiver.accepted[1].eventID == delivered.eventID)
                    let unknown = try await client.send(
                        .post, "/v1/webhooks/\(hook.id)/deliveries/evt_nothing/redeliver",
                        token: environment.ops)
                    #expect(unknown.status == .notFound)
                    #expect(unknown.errorCode == "delivery_not_found")
                }
            }
        }
    }

    @Test(
        "1,000 orders bumped to ready while a slow receiver (200 ms a request) listens: every event arrives, in order per order"
    )
    func thousandOrdersSlowReceiver() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver { _ in .delayed(.milliseconds(200), 200) }
        // An attempt that outlives its timeout is made again (at least once), so the timeout is far
        // above the receiver's 200 ms: "each once" must hold on a slow, busy machine too.
        let settings = WebhookDeliverySettings(
            timeout: .seconds(60), firstRetryDelay: .milliseconds(100),
            maxRetryDelay: .seconds(1), maxConcurrentDeliveries: 64,
            pollInterval: .milliseconds(500),
            addressPolicy: TestEnvironment.loopbackWebhooks)
        let orders = 1_000
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                // Room for every order in today's windows.
                var configuration = Fixtures.cafeConfiguration()
                configuration["pickup"] = [
                    "slotMinutes": 15, "capacity": 5000, "capacityUnit": "orders", "leadMinutes": 10,
                ]
                let saved = try await client.send(
                    .put, "/v1/cafes/testcafe", token: environment.ops, json: .object(configuration))
                try #require(saved.status.code < 300, "\(String(buffer: saved.body))")
                _ = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hook", events: ["order.placed", "order.ready"],
                    token: environment.ops)
                try await withDeliveryService(environment, settings: settings) {
                    let began = ContinuousClock.now
                    let placed = try await withThrowingTaskGroup(of: [(id: String, ticket: String)].self) { group in
                        for worker in 0..<16 {
                            group.addTask {
                                var mine: [(id: String, ticket: String)] = []
                                for number in stride(from: worker, to: orders, by: 16) {
                                    let order = try await client.placed(
                                        saladOrder(name: "Guest \(number)"), token: environment.kiosk)
                                    mine.append((order.id, try #require(order.tickets["cold"])))
                                }
                                return mine
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                    let placing = ContinuousClock.now - began
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<16 {
                            group.addTask {
                                for index in stride(from: worker, to: placed.count, by: 16) {
                                    try await client.move(
                                        placed[index].ticket, to: "preparing", token: environment.kitchen)
                                    try await client.move(placed[index].ticket, to: "ready", token: environment.kitchen)
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    let bumping = ContinuousClock.now - began - placing
                    print(
                        "1,000 orders placed in \(placing), bumped to ready in \(bumping), with the slow receiver listening"
                    )
                    #expect(
                        try await eventually(within: .seconds(120)) {
                            Set(receiver.accepted.map(\.eventID)).count == 2 * orders
                        })
                    print("every event accepted \(ContinuousClock.now - began) after the first order")
                    let accepted = receiver.accepted
                    var byOrder: [String: [String]] = [:]
                    for request in accepted { byOrder[request.orderID, default: []].append(request.eventType) }
                    #expect(byOrder.count == orders)
                    #expect(Set(placed.map(\.id)) == Set(byOrder.keys), "every order's events, none other")
                    #expect(byOrder.values.allSatisfy { $0 == ["order.placed", "order.ready"] }, "in order, each once")
                }
            }
        }
    }
}
