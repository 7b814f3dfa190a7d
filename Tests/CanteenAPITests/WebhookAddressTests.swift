import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenNotify
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Webhooks must not reach the server's own network (issue 27, item 1): an ops token could
/// otherwise read the cloud metadata service or a loopback admin port through the deliveries.
@Suite("Webhook URLs: internal addresses refused, receivers' bodies never kept")
struct WebhookAddressTests {
    /// Every spelling of an internal address that a resolver or a socket accepts.
    static let internalURLs = [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[::ffff:7f00:1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a00:1]/",
        "http://[::127.0.0.1]/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://127.0.0.1./",
        "http://017700000001/",
        "http://0.0.0.0/",
        "http://0/",
        "http://[::]/",
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://127.0.0.1:8080/hook",
        "http://127.9.9.9/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://172.31.255.255/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://[fe80::1]/",
        "http://[fec0::1]/",
        "http://224.0.0.1/",
        "http://239.255.255.250:1900/",
        "http://[ff02::1]/",
        "http://255.255.255.255/",
        "http://240.0.0.1/",
        "http://192.0.2.10/",
        "http://198.51.100.7/",
        "http://203.0.113.9/",
        "http://198.18.0.1/",
        "http://[2001:db8::1]/",
        "http://localhost:8080/hook",
        "http://LOCALHOST/",
    ]

    @Test(
        "every spelling of a loopback, link-local, private, unspecified, multicast, broadcast or reserved address is refused at registration, naming the url field; nothing is stored",
        arguments: internalURLs)
    func internalAddressRefused(url: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let refused = try await client.send(
                .post, "/v1/webhooks", token: environment.ops,
                json: ["url": .string(url), "events": ["order.ready"]])
            #expect(refused.status.code == 422, "\(url): \(String(buffer: refused.body))")
            #expect(
                ["webhook_address_not_allowed", "invalid_webhook_url"].contains(refused.errorCode ?? ""),
                "\(url): \(String(buffer: refused.body))")
            #expect(refused.errorField == "url")
            #expect(try await environment.rowCount("webhookEndpoint") == 0)
        }
    }

    @Test(
        "a URL with control characters, spaces, user info or a port out of range is refused with a clear message",
        arguments: [
            ("http://hooks.example.com/a\u{0}b", "control character"),
            ("http://hooks.example.com/a\nb", "control character"),
            ("http://hooks.example.com\r\n/", "control character"),
            ("http://hooks.example.com/\u{7F}", "control character"),
            ("http://hooks.example.com/a b", "space"),
            ("http://hooks.example.com:0/", "port"),
            ("http://hooks.example.com:65536/", "port"),
            ("http://hooks.example.com:99999/", "port"),
            ("http://hooks.example.com:-1/", "port"),
            ("http://user@hooks.example.com/", "user name"),
            ("http://@hooks.example.com/", "user name"),
            ("http://hooks.example.com@127.0.0.1/", "user name"),
            ("http://127.0.0.%31/", "percent"),
            ("http://[fe80::1%25eth0]/", "zone"),
        ])
    func malformedURLRefused(url: String, words: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let refused = try await client.send(
                .post, "/v1/webhooks", token: environment.ops,
                json: ["url": .string(url), "events": ["order.ready"]])
            #expect(refused.status.code == 422, "\(url.debugDescription): \(String(buffer: refused.body))")
            // NUL and DEL are refused by the JSON reader already, for every string field.
            #expect(
                ["invalid_webhook_url", "control_character"].contains(refused.errorCode ?? ""),
                "\(url.debugDescription)")
            #expect(refused.errorField == "url")
            let message = try refused.json["error", "message"]?.stringValue ?? ""
            #expect(message.contains(words), "\(url.debugDescription): \(message)")
            #expect(try await environment.rowCount("webhookEndpoint") == 0)
        }
    }

    @Test("public addresses, IPv4-mapped public addresses and public names are accepted")
    func publicAccepted() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for url in [
                "http://93.184.215.14/hook", "https://[2606:4700:4700::1111]:8443/hook",
                "http://[::ffff:93.184.215.14]/hook", "https://hooks.example.com/canteen",
            ] {
                let created = try await client.send(
                    .post, "/v1/webhooks", token: environment.ops,
                    json: ["url": .string(url), "events": ["order.ready"]])
                #expect(created.status == .created, "\(url): \(String(buffer: created.body))")
            }
        }
    }

    @Test(
        "a stored URL whose name resolves to loopback is refused at delivery: no request, an attempt with our own error"
    )
    func refusedAtDelivery() async throws {
        let environment = try await TestEnvironment.make()
        let receiver = WebhookReceiver()
        try await receiver.serve { port in
            // Stored as an older Canteen (or a name whose DNS changed since) would have it.
            let (endpoint, _) = try await environment.stores.webhooks.createEndpoint(
                WebhookRegistration(url: "http://localhost:\(port)/hook", cafeID: nil, events: ["order.placed"]))
            try await withRouter(environment) { client in
                try await withDeliveryService(environment, settings: Self.publicOnly) {
                    _ = try await client.placed(saladOrder(), token: environment.kiosk)
                    let attempted = try await eventually(within: .seconds(30)) {
                        let listing = try await client.send(
                            .get, "/v1/webhooks/\(endpoint.id)/deliveries",
                            token: environment.ops)
                        return try listing.json["deliveries", 0, "attempts", 0] != nil
                    }
                    try #require(attempted)
                    let listing = try await client.send(
                        .get, "/v1/webhooks/\(endpoint.id)/deliveries",
                        token: environment.ops)
                    let attempt = try #require(try listing.json["deliveries", 0, "attempts", 0])
                    #expect(attempt["statusCode"] == nil)
                    let error = try #require(attempt["error"]?.stringValue)
                    #expect(error == "refused: localhost resolves to 127.0.0.1, which is loopback", "\(error)")
                    #expect(try listing.json["deliveries", 0, "state"] == "pending", "retried, in case ops allow it")
                }
            }
        }
        #expect(receiver.requests.isEmpty, "the loopback receiver was never sent a request")
    }

    @Test("a receiver answering 500 with a secret body: only 'HTTP 500' is kept, in the deliveries and the database")
    func receiverBodyNeverKept() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let secret = "SECRET-INTERNAL-BODY ami-id=i-0123456789"
        let receiver = WebhookReceiver { request in request.earlier < 2 ? .statusAndBody(500, secret) : .status(204) }
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                let hook = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hook", events: ["order.placed"],
                    token: environment.ops)
                try await withDeliveryService(environment) {
                    _ = try await client.placed(saladOrder(), token: environment.kiosk)
                    #expect(try await eventually { receiver.accepted.count == 1 })
                    #expect(
                        try await eventually {
                            let listing = try await client.send(
                                .get, "/v1/webhooks/\(hook.id)/deliveries", token: environment.ops)
                            return try listing.json["deliveries", 0, "state"] == "delivered"
                        })
                    let listing = try await client.send(
                        .get, "/v1/webhooks/\(hook.id)/deliveries", token: environment.ops)
                    #expect(!String(buffer: listing.body).contains("SECRET"), "\(String(buffer: listing.body))")
                    #expect(try listing.json["deliveries", 0, "attempts", 0, "error"] == "HTTP 500")
                    #expect(try listing.json["deliveries", 0, "attempts", 0, "statusCode"] == 500)
                    #expect(try listing.json["deliveries", 0, "attempts", 1, "error"] == "HTTP 500")
                }
            }
        }
        let stored = try await environment.stores.sqliteDatabase!.writer.read { db in
            try String.fetchAll(db, sql: "SELECT error FROM webhookAttempt WHERE error IS NOT NULL")
        }
        #expect(stored == ["HTTP 500", "HTTP 500"])
    }

    @Test("a loopback receiver is refused by default, and registered and delivered to once its range is allowed")
    func allowedRangeLetsLoopbackThrough() async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { port in
            let url = "http://127.0.0.1:\(port)/hook"
            let refusing = try await TestEnvironment.make()
            try await withRouter(refusing) { client in
                let refused = try await client.send(
                    .post, "/v1/webhooks", token: refusing.ops,
                    json: ["url": .string(url), "events": ["order.placed"]])
                #expect(refused.status.code == 422)
                #expect(refused.errorCode == "webhook_address_not_allowed")
                let message = try refused.json["error", "message"]?.stringValue ?? ""
                #expect(
                    message.contains("address 127.0.0.1 is loopback") && message.contains("--webhook-allow-private"),
                    "\(message)")
            }
            // As `canteen serve --webhook-allow-private 127.0.0.0/8` configures it.
            let allowing = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
            try await withRouter(allowing) { client in
                _ = try await client.registerWebhook(url: url, events: ["order.placed"], token: allowing.ops)
                try await withDeliveryService(allowing) {
                    let order = try await client.placed(saladOrder(), token: allowing.kiosk)
                    #expect(try await eventually { receiver.accepted.contains { $0.orderID == order.id } })
                }
            }
        }
    }

    @Test("a name is connected to the address it was judged by, never resolved again by the HTTP client")
    func connectsToTheAddressJudged() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver()
        // Only this resolver knows the name: the system's does not, so a delivery proves that the
        // request went to the address the policy judged (127.0.0.1, allowed here).
        let resolver = FixedResolver(addresses: ["receiver.canteen-test.invalid": [IPAddress("127.0.0.1")!]])
        try await receiver.serve { port in
            let (endpoint, _) = try await environment.stores.webhooks.createEndpoint(
                WebhookRegistration(
                    url: "http://receiver.canteen-test.invalid:\(port)/hook", cafeID: nil, events: ["order.placed"]))
            try await withRouter(environment) { client in
                try await withDeliveryService(environment, resolver: resolver) {
                    let order = try await client.placed(saladOrder(), token: environment.kiosk)
                    let delivered = try await eventually { receiver.accepted.contains { $0.orderID == order.id } }
                    let listing = try await client.send(
                        .get, "/v1/webhooks/\(endpoint.id)/deliveries", token: environment.ops)
                    #expect(delivered, "\(String(buffer: listing.body))")
                }
            }
        }
    }

    /// The tests' quick delivery, with no internal range allowed.
    static let publicOnly: WebhookDeliverySettings = {
        var settings = quickDelivery
        settings.addressPolicy = WebhookAddressPolicy()
        return settings
    }()
}

/// Resolves the names of its table, and no other.
struct FixedResolver: HostResolver {
    let addresses: [String: [IPAddress]]

    func addresses(of name: String) async throws -> [IPAddress] {
        guard let found = addresses[name] else { throw HostResolutionError(name: name, reason: "unknown to the test") }
        return found
    }
}
