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

/// A walk through the whole API as its users would take it: ops configure, a kiosk orders, the
/// kitchen moves tickets, preferences and beacons are read and written. Every request body the server
/// must take is first checked against the document's request schema (so the documented input is what
/// the server takes), every answer against the documented responses.
struct ContractTour {
    let client: any TestClientProtocol
    let environment: TestEnvironment
    let contract: ContractRecorder
    /// The identity provider people sign in with (none: sign-in answers 404).
    var provider: TestIdentityProvider?

    /// Sends a request of `operation` and checks the answer; returns it for the next step.
    @discardableResult
    func call(
        _ operation: String, _ uri: String, token: String?, json: JSONValue? = nil,
        headers: HTTPFields = [:], expecting status: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestResponse {
        let document = contract.document
        // A body the server must take is checked against the document (a refused one breaks it on purpose).
        if status < 400, let json, let entry = document.operations[operation],
            let schemaEntry = entry.requestBody?["application/json"], let schema = schemaEntry
        {
            let problems = SchemaValidator(root: document.root).problems(json, against: schema)
            #expect(
                problems == [], "\(operation): the tour's request body breaks the documented schema",
                sourceLocation: sourceLocation)
        }
        let method = HTTPRequest.Method(rawValue: String(operation.split(separator: " ")[0]))!
        let response = try await client.send(method, uri, token: token, json: json, headers: headers)
        contract.check(operation, response, expecting: status, sourceLocation: sourceLocation)
        return response
    }

    func run() async throws {
        let ops = environment.ops, kiosk = environment.kiosk, kitchen = environment.kitchen
        try await call("GET /healthz", "/healthz", token: nil, expecting: 200)
        try await call("GET /readyz", "/readyz", token: nil, expecting: 200)
        try await call("GET /metrics", "/metrics", token: ops, expecting: 200)
        try await call("GET /v1/token", "/v1/token", token: kiosk, expecting: 200)
        try await call("GET /v1/token", "/v1/token", token: nil, expecting: 401)

        // MARK: Pages
        for page in ["kds", "kiosk", "board", "ops"] {
            try await call(
                "GET /\(page)", "/\(page)?cafe=testcafe", token: nil, headers: [.acceptLanguage: "ar"],
                expecting: 200)
        }
        try await call("GET /assets/{name}", "/assets/canteen.js", token: nil, expecting: 200)
        try await call("GET /assets/{name}", "/assets/nothing.js", token: nil, expecting: 404)
        try await call("GET /metrics", "/metrics", token: kiosk, expecting: 403)

        // MARK: Tokens (ops)
        let created = try await call(
            "POST /v1/tokens", "/v1/tokens", token: ops,
            json: ["role": "kiosk", "cafeId": "testcafe", "name": "counter 2"], expecting: 201)
        try await call("POST /v1/tokens", "/v1/tokens", token: ops, json: ["role": "chef"], expecting: 422)
        try await call("POST /v1/tokens", "/v1/tokens", token: kiosk, json: ["role": "ops"], expecting: 403)
        try await call("GET /v1/tokens", "/v1/tokens", token: ops, expecting: 200)
        let tokenID = try #require(try created.json["token", "id"]?.stringValue)
        try await call("DELETE /v1/tokens/{tokenId}", "/v1/tokens/\(tokenID)", token: ops, expecting: 204)
        try await call("DELETE /v1/tokens/{tokenId}", "/v1/tokens/tok_nothing", token: ops, expecting: 404)

        // MARK: Cafés and menus (ops)
        try await call("GET /v1/cafes", "/v1/cafes", token: kiosk, expecting: 200)
        try await call("GET /v1/cafes/{cafeId}", "/v1/cafes/testcafe", token: kiosk, expecting: 200)
        try await call("GET /v1/cafes/{cafeId}", "/v1/cafes/nowhere", token: ops, expecting: 404)
        try await call("GET /v1/cafes/{cafeId}", "/v1/cafes/othercafe", token: environment.boundKiosk, expecting: 403)
        let spare = Fixtures.cafeDocument(id: "spare", major: 902)
        try await call(
            "PUT /v1/cafes/{cafeId}", "/v1/cafes/spare", token: ops,
            json: .object(Fixtures.cafeConfiguration(spare)), expecting: 201)
        try await call(
            "PUT /v1/cafes/{cafeId}", "/v1/cafes/spare", token: ops,
            json: .object(Fixtures.cafeConfiguration(spare)), expecting: 200)
        try await call(
            "PUT /v1/cafes/{cafeId}", "/v1/cafes/spare", token: kiosk,
            json: .object(Fixtures.cafeConfiguration(spare)), expecting: 403)
        var invalid = Fixtures.cafeConfiguration(spare)
        invalid["currency"] = "XXQ"
        try await call("PUT /v1/cafes/{cafeId}", "/v1/cafes/spare", token: ops, json: .object(invalid), expecting: 422)
        try await call(
            "PUT /v1/cafes/{cafeId}/menu", "/v1/cafes/spare/menu", token: ops,
            json: .object(Fixtures.menuDocument(spare)), expecting: 200)
        // Kitchen timing: a limited salad with a prep time, what is left of it, live times.
        var limited = Fixtures.menuDocument(spare)
        if case .array(var items)? = limited["items"], case .object(var salad) = items[2] {
            salad["dailyQuantity"] = 5
            salad["prepSeconds"] = 240
            items[2] = .object(salad)
            limited["items"] = .array(items)
        }
        try await call(
            "PUT /v1/cafes/{cafeId}/menu", "/v1/cafes/spare/menu", token: ops, json: .object(limited),
            expecting: 200)
        let remaining = "PUT /v1/cafes/{cafeId}/menu/items/{itemId}/remaining"
        try await call(
            remaining, "/v1/cafes/spare/menu/items/salad/remaining", token: ops, json: ["remaining": 2],
            expecting: 200)
        try await call(
            remaining, "/v1/cafes/spare/menu/items/latte/remaining", token: ops, json: ["remaining": 2],
            expecting: 422)
        try await call(
            remaining, "/v1/cafes/spare/menu/items/salad/remaining", token: kiosk, json: ["remaining": 2],
            expecting: 403)
        try await call(
            remaining, "/v1/cafes/spare/menu/items/soup/remaining", token: ops, json: ["remaining": 2],
            expecting: 404)
        try await call("GET /v1/cafes/{cafeId}/kitchen", "/v1/cafes/spare/kitchen", token: ops, expecting: 200)
        try await call("GET /v1/cafes/{cafeId}/kitchen", "/v1/cafes/nowhere/kitchen", token: ops, expecting: 404)
        try await call(
            "GET /v1/cafes/{cafeId}/pickup-windows", "/v1/cafes/spare/pickup-windows?items=salad,latte",
            token: ops, expecting: 200)
        try await call("GET /v1/cafes/{cafeId}/menu", "/v1/cafes/spare/menu", token: ops, expecting: 200)
        let menu = try await call(
            "GET /v1/cafes/{cafeId}/menu", "/v1/cafes/testcafe/menu", token: kiosk,
            headers: [.acceptLanguage: "es"], expecting: 200)
        let etag = try #require(menu.headers[.eTag])
        try await call(
            "GET /v1/cafes/{cafeId}/menu", "/v1/cafes/testcafe/menu", token: kiosk,
            headers: [.acceptLanguage: "es", .ifNoneMatch: etag], expecting: 304)
        try await call(
            "PATCH /v1/cafes/{cafeId}/menu/items/{itemId}", "/v1/cafes/testcafe/menu/items/salad", token: ops,
            json: ["soldOut": true, "soldOutUntil": "2030-01-01T00:00:00Z"], expecting: 200)
        try await call(
            "PATCH /v1/cafes/{cafeId}/menu/items/{itemId}", "/v1/cafes/testcafe/menu/items/salad", token: ops,
            json: ["soldOut": false, "price": 760], expecting: 200)
        try await call(
            "PATCH /v1/cafes/{cafeId}/menu/items/{itemId}", "/v1/cafes/testcafe/menu/items/nothing",
            token: ops, json: ["soldOut": true], expecting: 404)
        try await call(
            "GET /v1/cafes/{cafeId}/pickup-windows", "/v1/cafes/testcafe/pickup-windows?date=2026-03-02",
            token: kiosk, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/pickup-windows", "/v1/cafes/testcafe/pickup-windows?date=March",
            token: kiosk, expecting: 422)

        // MARK: Orders and the kitchen
        let orderHeaders: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "tour-1", .acceptLanguage: "fr"]
        let placed = try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: orderBody(),
            headers: orderHeaders, expecting: 201)
        try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: orderBody(), headers: orderHeaders,
            expecting: 201)
        try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: orderBody(name: "Grace"),
            headers: orderHeaders, expecting: 422)
        try await call("POST /v1/orders", "/v1/orders", token: kiosk, json: orderBody(), expecting: 400)
        let orderID = try #require(try placed.json["order", "id"]?.stringValue ?? placed.json["id"]?.stringValue)
        try await call("GET /v1/orders/{orderId}", "/v1/orders/\(orderID)", token: kiosk, expecting: 200)
        try await call("GET /v1/orders/{orderId}", "/v1/orders/ord_nothing", token: kiosk, expecting: 404)
        let feed = try await call(
            "GET /v1/cafes/{cafeId}/tickets", "/v1/cafes/testcafe/tickets", token: kitchen,
            expecting: 200)
        let feedTag = try #require(feed.headers[.eTag])
        try await call(
            "GET /v1/cafes/{cafeId}/tickets", "/v1/cafes/testcafe/tickets", token: kitchen,
            headers: [.ifNoneMatch: feedTag], expecting: 304)
        try await call(
            "GET /v1/cafes/{cafeId}/tickets", "/v1/cafes/testcafe/tickets?after=0&station=bar&wait=0",
            token: kitchen, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/tickets", "/v1/cafes/testcafe/tickets?after=minus", token: kitchen,
            expecting: 400)
        let ticketID = try #require(try feed.json["tickets", 0, "id"]?.stringValue)
        try await call(
            "POST /v1/tickets/{ticketId}/status", "/v1/tickets/\(ticketID)/status", token: kitchen,
            json: ["status": "preparing"], expecting: 200)
        try await call(
            "POST /v1/tickets/{ticketId}/status", "/v1/tickets/\(ticketID)/status", token: kitchen,
            json: ["status": "picked_up"], expecting: 409)
        try await call(
            "POST /v1/tickets/{ticketId}/status", "/v1/tickets/tkt_nothing/status", token: kitchen,
            json: ["status": "ready"], expecting: 404)
        try await call("POST /v1/orders/{orderId}/cancel", "/v1/orders/\(orderID)/cancel", token: kiosk, expecting: 200)
        // A finished order's event stream sends its events and ends.
        try await call("GET /v1/orders/{orderId}/events", "/v1/orders/\(orderID)/events", token: kiosk, expecting: 200)
        try await call("GET /v1/orders/{orderId}/events", "/v1/orders/ord_nothing/events", token: kiosk, expecting: 404)
        try await call("DELETE /v1/cafes/{cafeId}", "/v1/cafes/testcafe", token: ops, expecting: 409)
        try await call("DELETE /v1/cafes/{cafeId}", "/v1/cafes/spare", token: ops, expecting: 204)

        // MARK: Preferences
        try await call(
            "GET /v1/users/{userId}/preferences", "/v1/users/u-ada/preferences", token: kiosk, expecting: 200)
        try await call(
            "PATCH /v1/users/{userId}/preferences", "/v1/users/u-ada/preferences", token: kiosk,
            json: ["defaultLocation": "testcafe", "locale": "fr-FR"], expecting: 200)
        try await call(
            "PATCH /v1/users/{userId}/preferences", "/v1/users/u-ada/preferences", token: kiosk,
            json: ["defaultLocation": 5], expecting: 422)
        try await call(
            "GET /v1/users/{userId}/preferences/{key}", "/v1/users/u-ada/preferences/locale", token: kiosk,
            expecting: 200)
        try await call(
            "PUT /v1/users/{userId}/preferences/{key}", "/v1/users/u-ada/preferences/theme", token: kiosk,
            json: "dark", expecting: 200)
        try await call(
            "PUT /v1/users/{userId}/preferences/{key}", "/v1/users/u-ada/preferences/theme", token: kiosk,
            json: "light", headers: [.ifMatch: "\"1\""], expecting: 412)
        try await call(
            "DELETE /v1/users/{userId}/preferences/{key}", "/v1/users/u-ada/preferences/theme", token: kiosk,
            expecting: 204)
        try await call(
            "GET /v1/users/{userId}/preferences/{key}", "/v1/users/u-ada/preferences/theme", token: kiosk,
            expecting: 404)
        try await call(
            "GET /v1/users/{userId}/preferences", "/v1/users/u-ada/preferences", token: kitchen,
            expecting: 403)
        try await call(
            "PUT /v1/preferences/defaults/{key}", "/v1/preferences/defaults/defaultLocation", token: ops,
            json: "testcafe", expecting: 200)
        try await call("GET /v1/preferences/defaults", "/v1/preferences/defaults", token: ops, expecting: 200)
        try await call(
            "GET /v1/preferences/defaults/{key}", "/v1/preferences/defaults/defaultLocation", token: ops,
            expecting: 200)
        try await call(
            "DELETE /v1/preferences/defaults/{key}", "/v1/preferences/defaults/defaultLocation", token: ops,
            expecting: 204)
        try await call(
            "GET /v1/preferences/defaults/{key}", "/v1/preferences/defaults/defaultLocation", token: ops,
            expecting: 404)

        // MARK: Beacons and café resolution
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        try await call("GET /v1/beacons", "/v1/beacons", token: ops, expecting: 200)
        try await call(
            "PUT /v1/beacons/{uuid}/{major}/{minor}", "/v1/beacons/\(uuid)/900/7", token: ops,
            json: ["cafeId": "testcafe", "label": "Till", "measuredPower": -60], expecting: 201)
        try await call(
            "PUT /v1/beacons/{uuid}/{major}/{minor}", "/v1/beacons/\(uuid)/900/7", token: ops,
            json: ["cafeId": "testcafe", "measuredPower": -61], expecting: 200)
        try await call(
            "PUT /v1/beacons/{uuid}/{major}/{minor}", "/v1/beacons/\(uuid)/901/7", token: ops,
            json: ["cafeId": "testcafe", "measuredPower": -61], expecting: 422)
        let sightings: JSONValue = ["sightings": [["uuid": .string(uuid), "major": 900, "minor": 7, "rssi": -62]]]
        try await call("POST /v1/locate", "/v1/locate", token: kiosk, json: sightings, expecting: 200)
        try await call(
            "POST /v1/users/{userId}/cafe", "/v1/users/u-ada/cafe", token: kiosk, json: sightings,
            expecting: 200)
        try await call(
            "DELETE /v1/beacons/{uuid}/{major}/{minor}", "/v1/beacons/\(uuid)/900/7", token: ops,
            expecting: 204)
        try await call(
            "DELETE /v1/beacons/{uuid}/{major}/{minor}", "/v1/beacons/\(uuid)/900/7", token: ops,
            expecting: 404)

        // MARK: Cards
        let card: JSONValue = [
            "userId": "u-ada", "displayName": "Ada", "technology": "type2",
            "identifier": "04A2B3C4D5E6F7",
        ]
        try await call("POST /v1/cards", "/v1/cards", token: ops, json: card, expecting: 201)
        var taken = card.objectValue ?? [:]
        taken["userId"] = "u-bob"
        try await call("POST /v1/cards", "/v1/cards", token: ops, json: .object(taken), expecting: 409)
        try await call(
            "POST /v1/cards/identify", "/v1/cards/identify", token: kiosk,
            json: ["technology": "type2", "identifier": "04A2B3C4D5E6F7"], expecting: 200)
        try await call(
            "POST /v1/cards/identify", "/v1/cards/identify", token: kiosk,
            json: ["technology": "type2", "identifier": "0400000000000A"], expecting: 404)
        let enrolment = try await call(
            "POST /v1/cards/enrolments", "/v1/cards/enrolments", token: ops,
            json: ["userId": "u-grace", "displayName": "Grace"], expecting: 201)
        let enrolmentCode = try #require(try enrolment.json["code"]?.stringValue)
        try await call(
            "POST /v1/cards/enrol", "/v1/cards/enrol", token: kiosk,
            json: ["code": .string(enrolmentCode), "technology": "felica", "identifier": "01010601CA0B4E21"],
            expecting: 201)
        try await call(
            "POST /v1/cards/enrol", "/v1/cards/enrol", token: kiosk,
            json: ["code": .string(enrolmentCode), "technology": "felica", "identifier": "01010601CA0B4E21"],
            expecting: 422)

        // MARK: Taps
        let tapCursor = try await call("GET /v1/taps", "/v1/taps", token: kiosk, expecting: 200)
        let after = try #require(try tapCursor.json["cursor"]?.stringValue)
        try await call(
            "POST /v1/taps", "/v1/taps", token: kiosk,
            json: ["technology": "felica", "identifier": "01010601CA0B4E21"], expecting: 201)
        try await call(
            "POST /v1/taps", "/v1/taps", token: kiosk,
            json: ["technology": "type2", "identifier": "0400000000000A"], expecting: 201)
        try await call("GET /v1/taps", "/v1/taps?after=\(after)&wait=0", token: kiosk, expecting: 200)
        try await call("GET /v1/taps", "/v1/taps", token: kitchen, expecting: 403)

        // MARK: Coupons
        let minted = try await call(
            "POST /v1/coupons", "/v1/coupons", token: ops,
            json: [
                "id": "TOUR1", "label": "1 $ off", "amountOff": ["amount": 100, "currency": "USD"],
                "cafeId": "testcafe", "validUntil": "2030-01-01T00:00:00Z",
            ],
            expecting: 201)
        try await call(
            "POST /v1/coupons", "/v1/coupons", token: ops,
            json: ["id": "TOUR1", "label": "again", "itemId": "latte"], expecting: 409)
        try await call(
            "POST /v1/coupons", "/v1/coupons", token: ops,
            json: ["label": "both", "itemId": "latte", "amountOff": ["amount": 1, "currency": "USD"]],
            expecting: 422)
        try await call(
            "POST /v1/coupons", "/v1/coupons", token: kiosk, json: ["label": "free", "itemId": "latte"],
            expecting: 403)
        let code = try #require(try minted.json["code"]?.stringValue)
        try await call("GET /v1/coupons", "/v1/coupons", token: ops, expecting: 200)
        try await call("GET /v1/coupons/{couponId}", "/v1/coupons/TOUR1", token: ops, expecting: 200)
        try await call("GET /v1/coupons/{couponId}", "/v1/coupons/NOPE", token: ops, expecting: 404)
        try await call(
            "POST /v1/coupons/check", "/v1/coupons/check", token: kiosk,
            json: ["code": .string(code), "cafeId": "testcafe"], expecting: 200)
        try await call(
            "POST /v1/coupons/check", "/v1/coupons/check", token: kiosk,
            json: ["code": .string(code + "x")], expecting: 422)
        var withCoupon = orderBody().objectValue ?? [:]
        withCoupon["coupon"] = .string(code)
        try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: .object(withCoupon),
            headers: [HTTPField.Name("Idempotency-Key")!: "tour-coupon"], expecting: 201)
        try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: .object(withCoupon),
            headers: [HTTPField.Name("Idempotency-Key")!: "tour-coupon-2"], expecting: 409)
        try await call("POST /v1/taps", "/v1/taps", token: kiosk, json: ["coupon": .string(code)], expecting: 201)
        try await call("DELETE /v1/coupons/{couponId}", "/v1/coupons/TOUR1", token: ops, expecting: 200)
        try await call("DELETE /v1/coupons/{couponId}", "/v1/coupons/NOPE", token: ops, expecting: 404)

        // MARK: Webhooks (ops)
        let hook = try await call(
            "POST /v1/webhooks", "/v1/webhooks", token: ops,
            json: ["url": "http://127.0.0.1:9/hook", "events": ["order.placed", "order.ready"]],
            expecting: 201)
        try await call(
            "POST /v1/webhooks", "/v1/webhooks", token: ops,
            json: ["url": "ftp://example.com/hook", "events": ["order.placed"]], expecting: 422)
        try await call(
            "POST /v1/webhooks", "/v1/webhooks", token: ops,
            json: ["url": "http://169.254.169.254/latest", "events": ["order.placed"]], expecting: 422)
        try await call(
            "POST /v1/webhooks", "/v1/webhooks", token: kiosk,
            json: ["url": "http://127.0.0.1:9/hook", "events": ["order.placed"]], expecting: 403)
        let hookID = try #require(try hook.json["id"]?.stringValue)
        try await call("GET /v1/webhooks", "/v1/webhooks", token: ops, expecting: 200)
        try await call("GET /v1/webhooks/{webhookId}", "/v1/webhooks/\(hookID)", token: ops, expecting: 200)
        try await call("GET /v1/webhooks/{webhookId}", "/v1/webhooks/whk_nothing", token: ops, expecting: 404)
        try await call(
            "POST /v1/webhooks/{webhookId}/rotate-secret", "/v1/webhooks/\(hookID)/rotate-secret", token: ops,
            expecting: 200)
        try await call(
            "POST /v1/orders", "/v1/orders", token: kiosk, json: orderBody(name: "Hook"),
            headers: [HTTPField.Name("Idempotency-Key")!: "tour-webhook"], expecting: 201)
        // The delivery service's round turns the order's event into a delivery (no attempt is made here).
        _ = try await environment.stores.webhooks.deliveryRound(
            recording: [], claim: 0, now: environment.clock.now,
            lease: 60)
        let deliveries = try await call(
            "GET /v1/webhooks/{webhookId}/deliveries",
            "/v1/webhooks/\(hookID)/deliveries?limit=10", token: ops, expecting: 200)
        try await call(
            "GET /v1/webhooks/{webhookId}/deliveries", "/v1/webhooks/\(hookID)/deliveries?limit=0",
            token: ops, expecting: 422)
        let eventID = try #require(
            try deliveries.json["deliveries", 0, "eventId"]?.stringValue,
            "\(String(buffer: deliveries.body))")
        try await call(
            "POST /v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver",
            "/v1/webhooks/\(hookID)/deliveries/\(eventID)/redeliver", token: ops, expecting: 202)
        try await call(
            "POST /v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver",
            "/v1/webhooks/\(hookID)/deliveries/evt_nothing/redeliver", token: ops, expecting: 404)
        try await call("DELETE /v1/webhooks/{webhookId}", "/v1/webhooks/\(hookID)", token: ops, expecting: 204)
        try await call("DELETE /v1/webhooks/{webhookId}", "/v1/webhooks/\(hookID)", token: ops, expecting: 404)
        try await console(ops: ops, kitchen: kitchen, kiosk: kiosk)
        try await runMe()

        // MARK: Ticket event stream (last: a stream ends only with its client or its server, so the
        // feed is told the server stops; the stream then sends its first event and ends)
        try await call(
            "GET /v1/cafes/{cafeId}/tickets/events", "/v1/cafes/testcafe/tickets/events?lang=fr",
            token: kitchen, headers: [HTTPField.Name("Last-Event-ID")!: "x"], expecting: 400)
        environment.services.feed.serverIsStopping()
        let stream = try await call(
            "GET /v1/cafes/{cafeId}/tickets/events",
            "/v1/cafes/testcafe/tickets/events?station=bar", token: kitchen, expecting: 200)
        #expect(String(buffer: stream.body).contains("event: snapshot\ndata: {"))
    }

    /// The console's routes (issue 33): overview, menu document, reports (JSON and CSV), audit log, cards.
    func console(ops: String, kitchen: String, kiosk: String) async throws {
        try await call("GET /v1/overview", "/v1/overview", token: ops, expecting: 200)
        try await call("GET /v1/overview", "/v1/overview", token: kitchen, expecting: 403)
        try await call(
            "GET /v1/cafes/{cafeId}/menu/document", "/v1/cafes/testcafe/menu/document", token: ops,
            expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/menu/document", "/v1/cafes/nowhere/menu/document", token: ops,
            expecting: 404)
        let csv: HTTPFields = [.accept: "text/csv"]
        for by in ["item", "hour", "day"] {
            try await call(
                "GET /v1/cafes/{cafeId}/reports/sales",
                "/v1/cafes/testcafe/reports/sales?from=2026-11-23&to=2026-11-23&by=\(by)", token: ops,
                expecting: 200)
        }
        try await call(
            "GET /v1/cafes/{cafeId}/reports/sales", "/v1/cafes/testcafe/reports/sales?from=2026-11-23&to=2026-11-23",
            token: ops, headers: csv, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/sales", "/v1/cafes/testcafe/reports/sales?from=2026-11-23",
            token: ops, expecting: 422)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/sales", "/v1/cafes/testcafe/reports/sales?from=2026-11-23&to=2026-11-23",
            token: kiosk, expecting: 403)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/kitchen",
            "/v1/cafes/testcafe/reports/kitchen?from=2026-11-23&to=2026-11-23",
            token: ops, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/kitchen",
            "/v1/cafes/testcafe/reports/kitchen?from=2026-11-23&to=2026-11-23",
            token: ops, headers: csv, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/windows", "/v1/cafes/testcafe/reports/windows?date=2026-11-23",
            token: ops, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/windows", "/v1/cafes/testcafe/reports/windows", token: ops,
            headers: csv, expecting: 200)
        try await call(
            "GET /v1/cafes/{cafeId}/reports/windows", "/v1/cafes/nowhere/reports/windows", token: ops,
            expecting: 404)
        try await call("GET /v1/audit", "/v1/audit?limit=5", token: ops, expecting: 200)
        try await call("GET /v1/audit", "/v1/audit?limit=0", token: ops, expecting: 422)
        try await call("GET /v1/audit", "/v1/audit?after=x", token: ops, expecting: 400)
        try await call("GET /v1/audit", "/v1/audit", token: kitchen, expecting: 403)
        try await call(
            "POST /v1/cards", "/v1/cards", token: ops,
            json: ["userId": "u-console", "technology": "type2", "identifier": "04AABBCCDDEEFF"], expecting: 201)
        let cards = try await call(
            "GET /v1/users/{userId}/cards", "/v1/users/u-console/cards", token: ops, expecting: 200)
        let cardID = try #require(try cards.json["cards", 0, "id"]?.stringValue)
        try await call("GET /v1/users/{userId}/cards", "/v1/users/u-console/cards", token: kiosk, expecting: 403)
        try await call(
            "DELETE /v1/users/{userId}/cards/{cardId}", "/v1/users/u-console/cards/\(cardID)", token: ops,
            expecting: 204)
        try await call(
            "DELETE /v1/users/{userId}/cards/{cardId}", "/v1/users/u-console/cards/\(cardID)", token: ops,
            expecting: 404)
    }
}
