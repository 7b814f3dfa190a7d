import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Coupons minted by ops and redeemed in orders: the discount is a line in the café's currency, tax is
/// worked out on what is left, a use is taken once however many kiosks try at the same time.
@Suite("Coupons over HTTP")
struct CouponRoutesTests {
    /// Mints a coupon and returns its signed code.
    func mint(_ client: some TestClientProtocol, _ environment: TestEnvironment, _ body: JSONValue) async throws
        -> String
    {
        let response = try await client.send(.post, "/v1/coupons", token: environment.ops, json: body)
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try #require(try response.json["code"]?.stringValue)
    }

    func order(coupon: String?, name: String = "Ada") -> JSONValue {
        var body = orderBody(name: name).objectValue ?? [:]
        if let coupon { body["coupon"] = .string(coupon) }
        return .object(body)
    }

    func coupon(_ client: some TestClientProtocol, _ environment: TestEnvironment, _ id: String) async throws
        -> JSONValue
    {
        try await client.send(.get, "/v1/coupons/\(id)", token: environment.ops).json
    }

    @Test("an amount off becomes a negative line in the café's currency; tax is worked out on the discounted subtotal")
    func amountOff() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(
                client, environment,
                ["id": "LUNCH2", "label": "2 $ off", "amountOff": ["amount": 200, "currency": "USD"]])
            #expect(code.hasPrefix("LUNCH2."))
            let plain = try await client.placeOrder(order(coupon: nil), token: environment.kiosk)
            let placed = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
            #expect(placed.status == .created)
            let lines = try #require(try placed.json["lines"].flatMap { if case .array(let a) = $0 { a } else { nil } })
            let discount = try #require(lines.last)
            #expect(discount["kind"] == "discount")
            #expect(discount["couponId"] == "LUNCH2")
            #expect(discount["name"] == "2 $ off")
            #expect(discount["lineTotal", "amount"] == .int(-200))
            #expect(discount["lineTotal", "currency"] == "USD")
            #expect(discount["itemId"] == nil && discount["station"] == nil)
            // latte large + shot ×2 = 2 × 5.85, salad 7.50: 19.20; less 2.00 = 17.20; tax 10.25 % = 1.76.
            #expect(try plain.json["subtotal", "amount"] == .int(1920))
            #expect(try placed.json["subtotal", "amount"] == .int(1720))
            #expect(try placed.json["tax", "amount"] == .int(176))
            #expect(try placed.json["total", "amount"] == .int(1896))
            // The kitchen sees the items only.
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            #expect(!String(buffer: feed.body).contains("LUNCH2"))
            #expect(try await coupon(client, environment, "LUNCH2")["uses"] == .int(1))
            #expect(try await coupon(client, environment, "LUNCH2")["status"] == "used_up")
        }
    }

    @Test("a single-use coupon redeemed by twenty kiosks at once is redeemed exactly once")
    func singleUseUnderConcurrency() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(client, environment, ["label": "free latte", "itemId": "latte"])
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let response = try await client.placeOrder(
                            order(coupon: code, name: "K\(index)"),
                            token: environment.kiosk)
                        return (Int(response.status.code), response.errorCode)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == (409, "coupon_used_up") }.count == 19)
            let id = String(code.split(separator: ".")[0])
            #expect(try await coupon(client, environment, id)["uses"] == .int(1))
        }
    }

    @Test("replaying an order with its key shows the discount again and does not use the coupon twice")
    func replayDoesNotRedeemAgain() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(
                client, environment,
                [
                    "id": "TWICE", "label": "1 $ off", "maxUses": 2,
                    "amountOff": ["amount": 100, "currency": "USD"],
                ])
            let first = try await client.placeOrder(order(coupon: code), token: environment.kiosk, key: "k-1")
            let replay = try await client.placeOrder(order(coupon: code), token: environment.kiosk, key: "k-1")
            #expect(replay.status == .created)
            #expect(String(buffer: replay.body) == String(buffer: first.body))
            #expect(try await coupon(client, environment, "TWICE")["uses"] == .int(1))
            #expect(try await coupon(client, environment, "TWICE")["remainingUses"] == .int(1))
        }
    }

    @Test("a code edited or signed elsewhere is refused with invalid_coupon_code and uses nothing")
    func forgedCode() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(
                client, environment,
                ["id": "REAL", "label": "1 $ off", "amountOff": ["amount": 100, "currency": "USD"]])
            let signature = code.split(separator: ".")[1]
            let edited = signature.dropLast() + (signature.last == "A" ? "B" : "A")
            for forged in ["OTHER.\(signature)", "REAL.\(edited)", "REAL", "REAL.", "."] {
                let response = try await client.placeOrder(order(coupon: forged), token: environment.kiosk)
                #expect(response.status == .unprocessableContent, "\(forged)")
                #expect(response.errorCode == "invalid_coupon_code")
                #expect(response.errorField == "coupon")
            }
            #expect(try await coupon(client, environment, "REAL")["uses"] == .int(0))
            #expect(try await environment.rowCount("customerOrder") == 0)
        }
    }

    @Test("a coupon of another café, another currency, or for an item the order lacks does not apply")
    func notApplicable() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let other = try await mint(
                client, environment,
                ["label": "x", "cafeId": "othercafe", "amountOff": ["amount": 100, "currency": "USD"]])
            let euros = try await mint(
                client, environment, ["label": "x", "amountOff": ["amount": 100, "currency": "EUR"]])
            let burrito = try await mint(client, environment, ["label": "x", "itemId": "burrito"])
            for code in [other, euros, burrito] {
                let response = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
                #expect(response.status == .unprocessableContent)
                #expect(response.errorCode == "coupon_not_applicable")
            }
            #expect(try await environment.rowCount("customerOrder") == 0)
        }
    }

    @Test("a coupon not yet valid, expired or withdrawn is refused with its own code")
    func notUsableNow() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let tomorrow = RFC3339.utcSeconds(environment.clock.now.addingTimeInterval(86_400))
            let yesterday = RFC3339.utcSeconds(environment.clock.now.addingTimeInterval(-86_400))
            let early = try await mint(
                client, environment,
                [
                    "label": "x", "itemId": "latte",
                    "validFrom": .string(tomorrow),
                ])
            let late = try await mint(
                client, environment,
                [
                    "label": "x", "itemId": "latte",
                    "validUntil": .string(yesterday),
                ])
            let withdrawn = try await mint(client, environment, ["id": "GONE", "label": "x", "itemId": "latte"])
            _ = try await client.send(.delete, "/v1/coupons/GONE", token: environment.ops)
            for (code, expected) in [
                (early, "coupon_not_yet_valid"), (late, "coupon_expired"),
                (withdrawn, "coupon_revoked"),
            ] {
                let response = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
                #expect(response.status == .conflict)
                #expect(response.errorCode == expected)
                let check = try await client.send(
                    .post, "/v1/coupons/check", token: environment.kiosk,
                    json: ["code": .string(code)])
                #expect(try check.json["usable"] == .bool(false))
                #expect(try check.json["reason"] == .string(expected))
            }
        }
    }

    @Test("one item free takes that line's unit price with its options; cancelling the order gives the use back")
    func itemFreeAndCancel() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(
                client, environment, ["id": "LATTE", "label": "a latte on us", "itemId": "latte"])
            let placed = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
            #expect(try placed.json["lines", 2, "lineTotal", "amount"] == .int(-585))
            #expect(try await coupon(client, environment, "LATTE")["remainingUses"] == .int(0))
            let id = try #require(try placed.json["id"]?.stringValue)
            let cancelled = try await client.send(.post, "/v1/orders/\(id)/cancel", token: environment.kiosk)
            #expect(cancelled.status == .ok)
            #expect(try cancelled.json["lines", 2, "kind"] == "discount")
            #expect(try await coupon(client, environment, "LATTE")["remainingUses"] == .int(1))
            let again = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
            #expect(again.status == .created)
        }
    }

    @Test("a discount larger than the order takes the order to zero, never below")
    func discountCappedAtSubtotal() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let code = try await mint(
                client, environment,
                ["label": "big", "amountOff": ["amount": 100_000, "currency": "USD"]])
            let placed = try await client.placeOrder(order(coupon: code), token: environment.kiosk)
            #expect(try placed.json["subtotal", "amount"] == .int(0))
            #expect(try placed.json["total", "amount"] == .int(0))
            #expect(try placed.json["lines", 2, "lineTotal", "amount"] == .int(-1920))
        }
    }

    @Test("minting checks every field and names it; a kiosk may not mint")
    func mintingValidates() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let cases: [(JSONValue, String, String)] = [
                (["itemId": "latte"], "label", "missing_field"),
                (["label": "x"], "amountOff", "invalid_field"),
                (["label": "x", "amountOff": ["amount": 0, "currency": "USD"]], "amountOff.amount", "out_of_range"),
                (
                    ["label": "x", "amountOff": ["amount": 5, "currency": "XXQ"]], "amountOff.currency",
                    "unknown_currency"
                ),
                (["label": "x", "itemId": "latte", "id": "no spaces"], "id", "invalid_field"),
                (["label": "x", "itemId": "latte", "cafeId": "nowhere"], "cafeId", "unknown_cafe"),
                (["label": "x", "itemId": "latte", "maxUses": 0], "maxUses", "out_of_range"),
                (
                    [
                        "label": "x", "itemId": "latte", "validFrom": "2026-03-02T00:00:00Z",
                        "validUntil": "2026-03-01T00:00:00Z",
                    ], "validUntil", "invalid_field"
                ),
                (["label": "x", "itemId": "latte", "colour": "red"], "colour", "unknown_field"),
            ]
            for (body, field, code) in cases {
                let response = try await client.send(.post, "/v1/coupons", token: environment.ops, json: body)
                #expect(response.status == .unprocessableContent, "\(body)")
                #expect(response.errorField == field, "\(body)")
                #expect(response.errorCode == code, "\(body)")
            }
            let kiosk = try await client.send(
                .post, "/v1/coupons", token: environment.kiosk,
                json: ["label": "x", "itemId": "latte"])
            #expect(kiosk.status == .forbidden)
            #expect(try await environment.rowCount("coupon") == 0)
        }
    }
}
