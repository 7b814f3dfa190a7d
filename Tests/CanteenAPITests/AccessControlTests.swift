import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Who sends a request: no token, a broken header, a token that does not exist or was revoked,
/// and tokens of each role, for the test café ("here") and for another café ("there").
enum Principal: String, CaseIterable, Sendable {
    case none, malformed, unknown, revoked
    case kioskHere, kioskThere, kitchenHere, kitchenThere, user, otherUser, ops, metrics
}

/// The statuses one route answers each principal, and what the request carries so that an
/// allowed principal succeeds (or meets the route's own rule, such as 409 for a café in use).
struct AccessRow: Sendable {
    var statuses: [Principal: Int]
    var body: String?
    var headers: [(String, String)] = []
    /// The path to request instead of the route's own (its parameters filled in the same way).
    var path: String?

    /// Columns in the order of the table's header: kiosk here, kiosk there, kitchen here,
    /// kitchen there, user, other user, ops. Without a token, with a malformed header, an unknown
    /// or a revoked token: `anonymous` (401 unless the route is public). A metrics token: 403
    /// unless the row says otherwise.
    init(
        _ kioskHere: Int, _ kioskThere: Int, _ kitchenHere: Int, _ kitchenThere: Int, _ user: Int, _ otherUser: Int,
        _ ops: Int, anonymous: Int = 401, metrics: Int = 403, body: String? = nil, headers: [(String, String)] = [],
        path: String? = nil
    ) {
        statuses = [
            .none: anonymous, .malformed: anonymous, .unknown: anonymous, .revoked: anonymous,
            .kioskHere: kioskHere, .kioskThere: kioskThere, .kitchenHere: kitchenHere,
            .kitchenThere: kitchenThere, .user: user, .otherUser: otherUser, .ops: ops, .metrics: metrics,
        ]
        self.body = body
        self.headers = headers
        self.path = path
    }

    /// Every principal gets `status`, whatever `Authorization` says.
    static func everyone(_ status: Int) -> AccessRow {
        AccessRow(status, status, status, status, status, status, status, anonymous: status, metrics: status)
    }
}

/// Every route × every principal → the expected status. The rows are keyed by the route as
/// `RouteTable` serves it: a route without a row fails `everyRouteHasARow`, so a new route
/// cannot be added without saying who may call it. Add a route's row as one line.
@Suite("access control: every route against every kind of caller")
struct AccessControlTests {
    static let order =
        #"{"cafeId":"testcafe","lines":[{"itemId":"latte","quantity":1,"options":["small"]}],"customer":{"name":"Ana","userId":"u-1"}}"#
    static let sighting =
        #"{"sightings":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":900,"minor":1,"rssi":-60}]}"#
    static let json = [("Content-Type", "application/json")]

    // Path parameters: the test café, its latte and beacon, user u-1 (whose order, preference
    // and card the fixture holds), the order's ticket, a throwaway token.
    //                                                      kiosk here/there, kitchen here/there, user, other user, ops
    static let rows: [String: AccessRow] = [
        "GET /healthz": .everyone(200),
        "GET /readyz": .everyone(200),
        // The pages and their files load without a token (each page then asks for one).
        "GET /kds": .everyone(200),
        "GET /kiosk": .everyone(200),
        "GET /board": .everyone(200),
        "GET /app": .everyone(200),
        "GET /app-sw.js": .everyone(200),
        "GET /assets/{name}": .everyone(200),
        "GET /v1/token": AccessRow(200, 200, 200, 200, 200, 200, 200),
        // Wherever the request comes from (MetricsAccessTests asks over loopback too).
        "GET /metrics": AccessRow(403, 403, 403, 403, 403, 403, 200, metrics: 200),
        "GET /v1/tokens": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "POST /v1/tokens": AccessRow(
            403, 403, 403, 403, 403, 403, 201, body: #"{"role":"user","userId":"u-9"}"#, headers: json),
        "DELETE /v1/tokens/{tokenId}": AccessRow(403, 403, 403, 403, 403, 403, 204),
        "GET /v1/cafes": AccessRow(200, 200, 200, 200, 200, 200, 200),
        "GET /v1/cafes/{cafeId}": AccessRow(200, 403, 200, 403, 200, 200, 200),
        "PUT /v1/cafes/{cafeId}": AccessRow(403, 403, 403, 403, 403, 403, 200, body: cafeConfiguration, headers: json),
        "DELETE /v1/cafes/{cafeId}": AccessRow(403, 403, 403, 403, 403, 403, 409),
        "GET /v1/cafes/{cafeId}/menu": AccessRow(200, 403, 200, 403, 200, 200, 200),
        "PUT /v1/cafes/{cafeId}/menu": AccessRow(403, 403, 403, 403, 403, 403, 200, body: menu, headers: json),
        "PATCH /v1/cafes/{cafeId}/menu/items/{itemId}": AccessRow(
            403, 403, 200, 403, 403, 403, 200, body: #"{"soldOut":true}"#, headers: json),
        "GET /v1/cafes/{cafeId}/pickup-windows": AccessRow(200, 403, 200, 403, 200, 200, 200),
        "GET /v1/cafes/{cafeId}/kitchen": AccessRow(200, 403, 200, 403, 200, 200, 200),
        // The fixture's latte is not a limited dish: those allowed meet the route's rule (422).
        "PUT /v1/cafes/{cafeId}/menu/items/{itemId}/remaining": AccessRow(
            403, 403, 422, 403, 403, 403, 422, body: #"{"remaining":3}"#, headers: json),
        // A person orders for themselves (the order is u-1's), never for someone else.
        "POST /v1/orders": AccessRow(
            201, 403, 403, 403, 201, 403, 201, body: order, headers: json + [("Idempotency-Key", "k-1")]),
        "GET /v1/orders/{orderId}": AccessRow(200, 403, 200, 403, 200, 403, 200),
        "POST /v1/orders/{orderId}/cancel": AccessRow(200, 403, 403, 403, 403, 403, 200),
        "GET /v1/cafes/{cafeId}/tickets": AccessRow(200, 403, 200, 403, 403, 403, 200),
        // A stream that opens does not end: a bad cursor shows who passes the token check (400)
        // without opening one.
        "GET /v1/cafes/{cafeId}/tickets/events": AccessRow(
            400, 403, 400, 403, 403, 403, 400,
            path: "/v1/cafes/{cafeId}/tickets/events?after=x"),
        "POST /v1/tickets/{ticketId}/status": AccessRow(
            403, 403, 200, 403, 403, 403, 200, body: #"{"status":"preparing"}"#, headers: json),
        "GET /v1/users/{userId}/preferences": AccessRow(200, 200, 403, 403, 200, 403, 200),
        "PATCH /v1/users/{userId}/preferences": AccessRow(
            200, 200, 403, 403, 200, 403, 200, body: #"{"theme":"blue"}"#, headers: json),
        "GET /v1/users/{userId}/preferences/{key}": AccessRow(200, 200, 403, 403, 200, 403, 200),
        "PUT /v1/users/{userId}/preferences/{key}": AccessRow(
            200, 200, 403, 403, 200, 403, 200, body: #""blue""#, headers: json),
        "DELETE /v1/users/{userId}/preferences/{key}": AccessRow(204, 204, 403, 403, 204, 403, 204),
        "POST /v1/users/{userId}/cafe": AccessRow(200, 200, 403, 403, 200, 403, 200),
        "GET /v1/preferences/defaults": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/preferences/defaults/{key}": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "PUT /v1/preferences/defaults/{key}": AccessRow(
            403, 403, 403, 403, 403, 403, 200, body: #""blue""#, headers: json),
        "DELETE /v1/preferences/defaults/{key}": AccessRow(403, 403, 403, 403, 403, 403, 204),
        "GET /v1/beacons": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "PUT /v1/beacons/{uuid}/{major}/{minor}": AccessRow(
            403, 403, 403, 403, 403, 403, 200, body: #"{"cafeId":"testcafe","measuredPower":-60}"#, headers: json),
        "DELETE /v1/beacons/{uuid}/{major}/{minor}": AccessRow(403, 403, 403, 403, 403, 403, 204),
        "POST /v1/locate": AccessRow(200, 200, 403, 403, 403, 403, 200, body: sighting, headers: json),
        "POST /v1/cards": AccessRow(
            403, 403, 403, 403, 403, 403, 201,
            body: #"{"userId":"u-2","technology":"type2","identifier":"04A25C1A2B3C81"}"#, headers: json),
        "POST /v1/cards/identify": AccessRow(
            200, 200, 403, 403, 403, 403, 200, body: #"{"technology":"type2","identifier":"04A25C1A2B3C80"}"#,
            headers: json),
        "POST /v1/cards/enrolments": AccessRow(
            403, 403, 403, 403, 403, 403, 201, body: #"{"userId":"u-3"}"#, headers: json),
        "POST /v1/cards/enrol": AccessRow(
            201, 201, 403, 403, 403, 403, 403,
            body: #"{"code":"{enrolmentCode}","technology":"type2","identifier":"04A25C1A2B3C82"}"#, headers: json),
        "POST /v1/taps": AccessRow(
            201, 201, 403, 403, 403, 403, 403, body: #"{"technology":"type2","identifier":"04A25C1A2B3C80"}"#,
            headers: json),
        "GET /v1/taps": AccessRow(200, 200, 403, 403, 403, 403, 403),
        "POST /v1/coupons": AccessRow(
            403, 403, 403, 403, 403, 403, 201, body: #"{"label":"free latte","itemId":"latte"}"#, headers: json),
        "GET /v1/coupons": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "POST /v1/coupons/check": AccessRow(
            200, 200, 403, 403, 403, 403, 200, body: #"{"code":"{couponCode}"}"#, headers: json),
        "GET /v1/coupons/{couponId}": AccessRow(403, 403, 403, 403, 403, 403, 200),
        // The order's event stream ends once the order is done: read the fixture's cancelled one.
        "GET /v1/orders/{orderId}/events": AccessRow(
            200, 403, 200, 403, 200, 403, 200,
            path: "/v1/orders/{cancelledOrderId}/events"),
        "POST /v1/webhooks": AccessRow(
            403, 403, 403, 403, 403, 403, 201, body: #"{"url":"http://127.0.0.1:9/hook","events":["order.ready"]}"#,
            headers: json),
        "GET /v1/webhooks": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/webhooks/{webhookId}": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "DELETE /v1/webhooks/{webhookId}": AccessRow(403, 403, 403, 403, 403, 403, 204),
        "POST /v1/webhooks/{webhookId}/rotate-secret": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/webhooks/{webhookId}/deliveries": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "POST /v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver": AccessRow(403, 403, 403, 403, 403, 403, 202),
        "DELETE /v1/coupons/{couponId}": AccessRow(403, 403, 403, 403, 403, 403, 200),
        // Signing in (no identity provider in this fixture) and the person's own data: tokens that
        // act for nobody in particular (kiosk, kitchen, ops) have no "me".
        "GET /auth/login": .everyone(404),
        "GET /auth/callback": .everyone(404),
        "POST /auth/logout": .everyone(204),
        "GET /v1/me": AccessRow(403, 403, 403, 403, 200, 200, 403),
        "GET /v1/me/orders": AccessRow(403, 403, 403, 403, 200, 200, 403),
        "GET /v1/me/data": AccessRow(403, 403, 403, 403, 200, 200, 403),
        "DELETE /v1/me": AccessRow(403, 403, 403, 403, 204, 204, 403),
        // The console (issue 33): its page, and what only ops read or change.
        "GET /ops": .everyone(200),
        "GET /v1/overview": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/audit": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/cafes/{cafeId}/menu/document": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "GET /v1/cafes/{cafeId}/reports/sales": AccessRow(
            403, 403, 403, 403, 403, 403, 200, path: "/v1/cafes/{cafeId}/reports/sales?from=2026-11-23&to=2026-11-23"),
        "GET /v1/cafes/{cafeId}/reports/kitchen": AccessRow(
            403, 403, 403, 403, 403, 403, 200,
            path: "/v1/cafes/{cafeId}/reports/kitchen?from=2026-11-23&to=2026-11-23"),
        "GET /v1/cafes/{cafeId}/reports/windows": AccessRow(
            403, 403, 403, 403, 403, 403, 200, path: "/v1/cafes/{cafeId}/reports/windows?date=2026-11-23"),
        "GET /v1/users/{userId}/cards": AccessRow(403, 403, 403, 403, 403, 403, 200),
        "DELETE /v1/users/{userId}/cards/{cardId}": AccessRow(403, 403, 403, 403, 403, 403, 204),
    ]

    static let cafeConfiguration = String(
        decoding: JSONValue.object(Fixtures.cafeConfiguration()).encoded(), as: UTF8.self)
    static let menu = String(decoding: JSONValue.object(Fixtures.menuDocument()).encoded(), as: UTF8.self)

    /// Every served route, as `METHOD /path/{parameter}`.
    static let served: [String] = {
        let stores = try! CanteenStores.open(dataDirectory: nil)
        return CanteenRouter.build(stores.apiServices(strings: TestEnvironment.strings)).openAPIOperations.sorted()
    }()

    @Test("every route the router serves has a row in this table, and every row is a served route")
    func everyRouteHasARow() {
        for operation in Self.served {
            #expect(
                Self.rows[operation] != nil, "no access row for \(operation): add one line to AccessControlTests.rows")
        }
        for operation in Self.rows.keys {
            #expect(Self.served.contains(operation), "\(operation) has a row but is not served")
        }
        #expect(Self.served.count >= 30)
    }

    @Test("each route answers each caller with the status of its row", arguments: served)
    func route(_ operation: String) async throws {
        let row = try #require(Self.rows[operation], "no access row for \(operation)")
        let parts = operation.split(separator: " ", maxSplits: 1)
        let method = HTTPRequest.Method(String(parts[0]))!
        // Reads share one fixture; each write gets a fresh one, so one caller's success does not
        // change what the next one finds.
        var shared: AccessFixture?
        for principal in Principal.allCases {
            let fixture: AccessFixture
            if method == .get, let existing = shared {
                fixture = existing
            } else {
                fixture = try await AccessFixture.make()
                shared = fixture
            }
            let path = fixture.path(row.path ?? String(parts[1]))
            var fields = HTTPFields()
            for (name, value) in row.headers { fields[HTTPField.Name(name)!] = value }
            if let authorization = fixture.authorization[principal] { fields[.authorization] = authorization }
            let headers = fields
            let response = try await withRouter(fixture.environment) { client in
                try await client.execute(
                    uri: path, method: method, headers: headers,
                    body: row.body.map { ByteBuffer(string: fixture.path($0)) })
            }
            let expected = row.statuses[principal]!
            #expect(
                Int(response.status.code) == expected,
                "\(operation) as \(principal.rawValue): \(response.status.code) \(String(buffer: response.body).prefix(200))"
            )
            if expected == 401 {
                #expect(response.errorCode == "unauthenticated", "\(operation) as \(principal.rawValue)")
            }
            if expected == 403 { #expect(response.errorCode == "forbidden", "\(operation) as \(principal.rawValue)") }
        }
    }
}

/// A test environment with a token per principal, an order of user u-1 at the test café placed by
/// the café's kiosk (and a cancelled one), a preference and a site default under `theme`, a
/// registered card (and its id), a throwaway token, a coupon, a one-time card enrolment code, and a webhook
/// with the delivery of the order's `order.placed` event.
struct AccessFixture: Sendable {
    let environment: TestEnvironment
    /// The `Authorization` header each principal sends (none for `.none`).
    let authorization: [Principal: String]
    let parameters: [String: String]

    static func make() async throws -> AccessFixture {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let tokens = environment.stores.tokens
        func secret(_ spec: TokenSpec) async throws -> String { try await tokens.createToken(spec).secret }
        let revoked = try await tokens.createToken(TokenSpec(role: .ops))
        try await tokens.revokeToken(id: revoked.token.id)
        let throwaway = try await tokens.createToken(TokenSpec(role: .kiosk, name: "throwaway"))
        let kioskHere = try await tokens.createToken(TokenSpec(role: .kiosk, cafeID: "testcafe", name: "here"))
        let (webhook, _) = try await environment.stores.webhooks.createEndpoint(
            WebhookRegistration(url: "http://127.0.0.1:9/hook", cafeID: nil, events: ["order.placed"]))
        var authorization: [Principal: String] = [
            .malformed: "Token \(environment.ops)",
            .unknown: "Bearer cnt_thisTokenWasNeverIssuedByCanteen00",
            .revoked: "Bearer \(revoked.secret)",
            .kioskHere: kioskHere.secret,
            .kioskThere: try await secret(TokenSpec(role: .kiosk, cafeID: "othercafe")),
            .kitchenHere: try await secret(TokenSpec(role: .kitchen, cafeID: "testcafe")),
            .kitchenThere: try await secret(TokenSpec(role: .kitchen, cafeID: "othercafe")),
            .user: try await secret(TokenSpec(role: .user, userID: "u-1")),
            .otherUser: try await secret(TokenSpec(role: .user, userID: "u-2")),
            .ops: environment.ops,
            .metrics: try await secret(TokenSpec(role: .metrics)),
        ]
        let tokenHolders: [Principal] = [
            .kioskHere, .kioskThere, .kitchenHere, .kitchenThere, .user, .otherUser, .ops,
            .metrics,
        ]
        for principal in tokenHolders {
            authorization[principal] = "Bearer \(authorization[principal]!)"
        }
        func place(_ key: String) async throws -> Order {
            let placement = try await environment.stores.orders.placeOrder(
                OrderRequest(
                    cafeID: "testcafe",
                    lines: [OrderLineRequest(itemID: "latte", quantity: 1, options: ["small"], note: nil)],
                    pickup: .asap, customer: Customer(name: "Ana", userID: "u-1")),
                key: IdempotencyKey(tokenID: kioskHere.token.id, key: key, requestHash: Data(key.utf8)))
            guard case .placed(let order) = placement else { throw RawHTTP.Failure(description: "no order placed") }
            return order
        }
        let order = try await place("access-1")
        let cancelled = try await place("access-2")
        _ = try await environment.stores.orders.cancelOrder(id: cancelled.id)
        _ = try await environment.stores.webhooks.deliveryRound(
            recording: [], claim: 0, now: environment.clock.now, lease: 60)
        let placedEvent = try #require(
            try await environment.stores.orderEvents.events(orderID: order.id, after: 0).first)
        _ = try await environment.stores.preferences.update(
            userID: "u-1", changes: ["theme": .set("dark")], condition: nil)
        try await environment.stores.preferences.setSiteDefault(key: "theme", value: "light")
        _ = try await environment.stores.cards.register(
            CardRegistration(userID: "u-1", displayName: "Ana", technology: .type2),
            identifier: try CardIdentifier("04A25C1A2B3C80"))
        let card = try #require(try await environment.stores.cards.cards(userID: "u-1").first)
        let coupon = try await environment.stores.coupons.createCoupon(
            Coupon(
                id: "ACCESS", label: "1 off", benefit: .itemFree(itemID: "latte"), cafeID: nil, validFrom: nil,
                validUntil: nil, maxUses: 5, createdAt: environment.clock.now))
        let enrolmentCode = try await environment.stores.cards.createEnrolment(
            userID: "u-3", displayName: nil, expiresAt: environment.clock.now.addingTimeInterval(600))
        return AccessFixture(
            environment: environment, authorization: authorization,
            parameters: [
                "couponId": coupon.id, "couponCode": try environment.stores.coupons.code(couponID: coupon.id),
                "enrolmentCode": enrolmentCode, "name": "canteen.js",
                "cafeId": "testcafe", "itemId": "latte", "orderId": order.id, "ticketId": order.tickets[0].id,
                "userId": "u-1", "key": "theme", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": "900",
                "minor": "1", "tokenId": throwaway.token.id, "cancelledOrderId": cancelled.id,
                "webhookId": webhook.id, "eventId": placedEvent.id, "cardId": card.id,
            ])
    }

    /// `/v1/cafes/{cafeId}` (or a body with `{couponCode}`) with the fixture's values.
    func path(_ template: String) -> String {
        var path = template
        for (name, value) in parameters { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        return path
    }
}
