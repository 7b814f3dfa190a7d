import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A kiosk's NFC agent reports taps; the kiosk's page (same token) learns of them; badges are
/// registered by ops or by their owner at a kiosk with a one-time code.
@Suite("Taps and card enrolment over HTTP")
struct TapRoutesTests {
    static let badge: JSONValue = ["technology": "type2", "identifier": "04A25C1A2B3C80"]

    func taps(_ response: TestResponse) throws -> [JSONValue] {
        guard case .array(let list)? = try response.json["taps"] else { return [] }
        return list
    }

    @Test(
        "a registered badge tapped at a kiosk names its owner and preferred café, to the agent and to that kiosk's page only"
    )
    func badgeTap() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var registration = Self.badge.objectValue ?? [:]
            registration["userId"] = "u-ada"
            registration["displayName"] = "Ada Lovelace"
            _ = try await client.send(.post, "/v1/cards", token: environment.ops, json: .object(registration))
            _ = try await client.send(
                .put, "/v1/users/u-ada/preferences/defaultLocation", token: environment.kiosk,
                json: "testcafe")
            let start = try await client.send(.get, "/v1/taps", token: environment.kiosk)
            #expect(try taps(start).isEmpty)
            let cursor = try #require(try start.json["cursor"]?.stringValue)

            let tap = try await client.send(.post, "/v1/taps", token: environment.kiosk, json: Self.badge)
            #expect(tap.status == .created)
            #expect(try tap.json["kind"] == "badge")
            #expect(try tap.json["user", "userId"] == "u-ada")
            #expect(try tap.json["user", "displayName"] == "Ada Lovelace")
            #expect(try tap.json["user", "preferredCafeId"] == "testcafe")

            let page = try await client.send(.get, "/v1/taps?after=\(cursor)", token: environment.kiosk)
            #expect(try taps(page).count == 1)
            #expect(try taps(page).first?["user", "userId"] == "u-ada")
            let next = try #require(try page.json["cursor"]?.stringValue)
            #expect(try taps(try await client.send(.get, "/v1/taps?after=\(next)", token: environment.kiosk)).isEmpty)
            // Another kiosk's page does not see it.
            let other = try await client.send(.get, "/v1/taps?after=0", token: environment.boundKiosk)
            #expect(try taps(other).isEmpty)
        }
    }

    @Test("a card nobody registered is a tap with card_not_registered; a coupon tag is a tap with its terms")
    func unknownBadgeAndCoupon() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let unknown = try await client.send(.post, "/v1/taps", token: environment.boundKiosk, json: Self.badge)
            #expect(unknown.status == .created)
            #expect(try unknown.json["error", "code"] == "card_not_registered")
            #expect(try unknown.json["user"] == nil)

            let minted = try await client.send(
                .post, "/v1/coupons", token: environment.ops,
                json: ["label": "free latte", "itemId": "latte"])
            let code = try #require(try minted.json["code"]?.stringValue)
            let coupon = try await client.send(
                .post, "/v1/taps", token: environment.boundKiosk,
                json: ["coupon": .string(code)])
            #expect(try coupon.json["kind"] == "coupon")
            #expect(try coupon.json["coupon", "label"] == "free latte")
            #expect(try coupon.json["coupon", "usable"] == .bool(true))
            let forged = try await client.send(
                .post, "/v1/taps", token: environment.boundKiosk,
                json: ["coupon": .string(code + "x")])
            #expect(try forged.json["error", "code"] == "invalid_coupon_code")
            let bad = try await client.send(
                .post, "/v1/taps", token: environment.boundKiosk,
                json: ["technology": "type2", "identifier": "zz"])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.errorCode == "invalid_card_identifier")
        }
    }

    @Test("a page long-polling its taps wakes when the agent reports one")
    func longPoll() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let cursor = try #require(
                try await client.send(.get, "/v1/taps", token: environment.kiosk).json["cursor"]?
                    .stringValue)
            async let waiting = client.send(.get, "/v1/taps?after=\(cursor)&wait=20", token: environment.kiosk)
            try await Task.sleep(for: .milliseconds(200))
            _ = try await client.send(.post, "/v1/taps", token: environment.kiosk, json: Self.badge)
            let woken = try await waiting
            #expect(try taps(woken).count == 1)
            #expect(try taps(woken).first?["error", "code"] == "card_not_registered")
        }
    }

    @Test("only kiosk tokens report and read taps")
    func kioskOnly() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for token in [environment.kitchen, environment.ops] {
                let post = try await client.send(.post, "/v1/taps", token: token, json: Self.badge)
                let get = try await client.send(.get, "/v1/taps", token: token)
                #expect(post.status == .forbidden)
                #expect(get.status == .forbidden)
            }
            let tooLong = try await client.send(.get, "/v1/taps?wait=31", token: environment.kiosk)
            #expect(tooLong.status == .unprocessableContent)
        }
    }

    @Test("a one-time code registers the tapped card to its user once, and not after it expires")
    func enrolment() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let made = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops,
                json: ["userId": "u-grace", "displayName": "Grace"])
            #expect(made.status == .created)
            let code = try #require(try made.json["code"]?.stringValue)
            #expect(code.count == 14 && code.split(separator: "-").map(\.count) == [4, 4, 4], "\(code)")
            #expect(code.allSatisfy { $0 == "-" || EnrolmentCode.alphabet.contains($0) })
            var body = Self.badge.objectValue ?? [:]
            body["code"] = .string(code.lowercased())
            let enrolled = try await client.send(
                .post, "/v1/cards/enrol", token: environment.kiosk, json: .object(body))
            #expect(enrolled.status == .created)
            #expect(try enrolled.json["userId"] == "u-grace")
            let identified = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk, json: Self.badge)
            #expect(try identified.json["displayName"] == "Grace")
            let again = try await client.send(.post, "/v1/cards/enrol", token: environment.kiosk, json: .object(body))
            #expect(again.status == .unprocessableContent)
            #expect(again.errorCode == "enrolment_code_invalid")

            let late = try #require(
                try await client.send(
                    .post, "/v1/cards/enrolments", token: environment.ops,
                    json: ["userId": "u-bob"]
                ).json["code"]?.stringValue)
            environment.clock.advance(by: 16 * 60)
            body["code"] = .string(late)
            body["identifier"] = "04000000000001"
            let expired = try await client.send(.post, "/v1/cards/enrol", token: environment.kiosk, json: .object(body))
            #expect(expired.errorCode == "enrolment_code_invalid")
            let byKiosk = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.kiosk,
                json: ["userId": "u-bob"])
            #expect(byKiosk.status == .forbidden)
        }
    }
}
