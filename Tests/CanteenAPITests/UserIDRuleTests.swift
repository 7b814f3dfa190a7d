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

/// One user-id rule on every route that takes one (1–128 of letters, digits, `-`, `_`, `.`, `@`),
/// 422 naming the field otherwise; and preference values hold no NUL.
@Suite("User ids and preference values: one rule everywhere")
struct UserIDRuleTests {
    static let badIDs = ["a b", "../etc", "<img src=x>", "a\u{0}b", "", String(repeating: "u", count: 129)]

    @Test(
        "a badge card registered by ops or enrolled through a one-time code refuses a malformed userId",
        arguments: badIDs)
    func cards(_ userID: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let card = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": .string(userID), "technology": "type2",
                    "identifier": "04A25C1A2B3C80",
                ])
            #expect(card.status == .unprocessableContent, "\(String(buffer: card.body))")
            #expect(card.errorCode == "invalid_field")
            #expect(card.errorField == "userId")
            let identify = try await client.send(
                .post, "/v1/cards/identify", token: environment.ops,
                json: ["technology": "type2", "identifier": "04A25C1A2B3C80"])
            #expect(identify.errorCode == "card_not_registered")

            let enrolment = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops,
                json: ["userId": .string(userID)])
            #expect(enrolment.status == .unprocessableContent, "\(String(buffer: enrolment.body))")
            #expect(enrolment.errorCode == "invalid_field")
            #expect(enrolment.errorField == "userId")
            #expect(try await environment.rowCount("cardEnrolment") == 0)
        }
    }

    @Test("user tokens, preferences, café resolution and orders refuse the same ids", arguments: badIDs)
    func everyOtherRoute(_ userID: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let token = try await client.send(
                .post, "/v1/tokens", token: environment.ops,
                json: ["role": "user", "userId": .string(userID)])
            #expect(token.status == .unprocessableContent)
            #expect(token.errorField == "userId")
            let order = try await client.send(
                .post, "/v1/orders", token: environment.kiosk,
                json: [
                    "cafeId": "testcafe", "lines": [["itemId": "latte", "quantity": 1, "options": ["small"]]],
                    "customer": ["name": "Ana", "userId": .string(userID)],
                ],
                headers: [HTTPField.Name("Idempotency-Key")!: "uid-1"])
            #expect(order.status == .unprocessableContent)
            #expect(order.errorField == "customer.userId")
            guard !userID.isEmpty else { return }  // an empty path segment is another route
            let path = try #require(userID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let preference = try await client.send(
                .put, "/v1/users/\(path)/preferences/theme", token: environment.ops,
                json: "dark")
            #expect(preference.status == .unprocessableContent)
            #expect(preference.errorField == "userId")
            let cafe = try await client.send(.post, "/v1/users/\(path)/cafe", token: environment.kiosk)
            #expect(cafe.status == .unprocessableContent)
            #expect(cafe.errorField == "userId")
        }
    }

    @Test("a well-formed id is taken by cards and enrolments", arguments: ["ana", "ana.lee@example.com", "u_1-2"])
    func accepted(_ userID: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let card = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": .string(userID), "technology": "type2",
                    "identifier": "04A25C1A2B3C80",
                ])
            #expect(card.status == .created)
            let enrolment = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops,
                json: ["userId": .string(userID)])
            #expect(enrolment.status == .created)
        }
    }

    @Test(
        "a preference value holding NUL is refused naming its key, in a PUT, a PATCH and a site default",
        arguments: [JSONValue.string("a\u{0}b"), ["list": ["ok", "\u{0}"]], ["key\u{0}": 1]])
    func nulInPreferences(_ value: JSONValue) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let put = try await client.send(
                .put, "/v1/users/u-1/preferences/theme", token: environment.ops, json: value)
            #expect(put.status == .unprocessableContent, "\(String(buffer: put.body))")
            #expect(put.errorCode == "invalid_preference")
            #expect(put.errorField == "theme")
            let patch = try await client.send(
                .patch, "/v1/users/u-1/preferences", token: environment.ops,
                json: ["fine": "yes", "theme": value])
            #expect(patch.status == .unprocessableContent)
            #expect(patch.errorField == "theme")
            let site = try await client.send(
                .put, "/v1/preferences/defaults/theme", token: environment.ops, json: value)
            #expect(site.status == .unprocessableContent)
            #expect(site.errorField == "theme")
            let stored = try await client.send(.get, "/v1/users/u-1/preferences", token: environment.ops)
            #expect(try stored.json["values", "theme"] == nil)
            #expect(try stored.json["values", "fine"] == nil)
        }
        // Other control characters are an app's business (a note may hold a line break)
        let document = try PreferenceDocument().applying(["note": .set("line\nbreak")], cafeExists: { _ in false })
        #expect(document["note"] == "line\nbreak")
    }
}
