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
import Testing

@Suite("tokens over the API (ops) and the user role")
struct TokenRoutesTests {
    @Test(
        "ops create a token (its secret shown once), list tokens without secrets, revoke one, and it stops working at once"
    )
    func lifecycle() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client async throws in
            let created = try await client.send(
                .post, "/v1/tokens", token: environment.ops,
                json: ["role": "kiosk", "cafeId": "testcafe", "name": "counter 2"])
            #expect(created.status == .created)
            let secret = try #require(try created.json["secret"]?.stringValue)
            let id = try #require(try created.json["token", "id"]?.stringValue)
            #expect(created.headers[.location] == "/v1/tokens/\(id)")
            #expect(try created.json["token", "cafeId"] == "testcafe")
            #expect(try await client.send(.get, "/v1/cafes/testcafe", token: secret).status == .ok)

            let listed = try await client.send(.get, "/v1/tokens", token: environment.ops)
            #expect(listed.status == .ok)
            let body = String(buffer: listed.body)
            for known in [secret, environment.ops, environment.kiosk] { #expect(!body.contains(known)) }
            #expect(!body.contains("secret"))
            guard case .array(let tokens)? = try listed.json["tokens"] else { Issue.record("no tokens"); return }
            #expect(tokens.count == 5)

            #expect(try await client.send(.delete, "/v1/tokens/\(id)", token: environment.ops).status == .noContent)
            let after = try await client.send(.get, "/v1/cafes/testcafe", token: secret)
            #expect(after.status == .unauthorized, "a revoked token still works")
            let again = try await client.send(.get, "/v1/tokens", token: environment.ops)
            guard case .array(let all)? = try again.json["tokens"] else { Issue.record("no tokens"); return }
            let revoked = try #require(all.first { $0["id"] == .string(id) })
            #expect(revoked["active"] == false && revoked["revokedAt"]?.stringValue != nil)
            #expect(
                try await client.send(.delete, "/v1/tokens/tok_nope", token: environment.ops).errorCode
                    == "token_not_found")
        }
        // Stored as a hash only.
        let hashes = try await environment.stores.sqliteDatabase!.writer.read { db in
            try Data.fetchAll(db, sql: "SELECT secretHash FROM accessToken")
        }
        #expect(hashes.allSatisfy { $0.count == 32 })
    }

    @Test(
        "a token's role and binding are checked: each wrong combination is a 4xx naming its field",
        arguments: [
            (#"{"role": "user"}"#, 422, "missing_field", "userId"),
            (#"{"role": "user", "userId": "a b"}"#, 422, "invalid_field", "userId"),
            (#"{"role": "user", "userId": "u-1", "cafeId": "testcafe"}"#, 422, "invalid_field", "cafeId"),
            (#"{"role": "ops", "cafeId": "testcafe"}"#, 422, "invalid_field", "cafeId"),
            (#"{"role": "kiosk", "userId": "u-1"}"#, 422, "invalid_field", "userId"),
            (#"{"role": "wizard"}"#, 422, "invalid_field", "role"),
            (#"{"role": "kiosk", "cafeId": "nowhere"}"#, 404, "cafe_not_found", "cafeId"),
            (#"{"role": "kiosk", "extra": 1}"#, 422, "unknown_field", "extra"),
        ])
    func badTokens(body: String, status: Int, code: String, field: String) async throws {
        let environment = try await TestEnvironment.make()
        let before = try await environment.rowCount("accessToken")
        let response = try await withRouter(environment) { client async throws in
            try await client.send(.post, "/v1/tokens", token: environment.ops, rawBody: body)
        }
        #expect(Int(response.status.code) == status, "\(String(buffer: response.body))")
        #expect(response.errorCode == code)
        #expect(response.errorField == field)
        #expect(try await environment.rowCount("accessToken") == before)
    }

    @Test(
        "a user token follows only its user's orders, resolves only its user's café, and writes only its user's preferences"
    )
    func userToken() async throws {
        let environment = try await TestEnvironment.make()
        let mine = try await environment.stores.tokens.createToken(TokenSpec(role: .user, userID: "u-1")).secret
        let placement = { (user: String?) async throws -> String in
            let placed = try await environment.stores.orders.placeOrder(
                OrderRequest(
                    cafeID: "testcafe",
                    lines: [OrderLineRequest(itemID: "latte", quantity: 1, options: ["small"], note: nil)],
                    pickup: .asap, customer: Customer(name: "Ana", userID: user)), key: nil)
            guard case .placed(let order) = placed else { throw CanteenError.notFound(.order, "-") }
            return order.id
        }
        let own = try await placement("u-1")
        let other = try await placement("u-2")
        let anonymous = try await placement(nil)
        try await withRouter(environment) { client async throws in
            #expect(try await client.send(.get, "/v1/orders/\(own)", token: mine).status == .ok)
            #expect(try await client.send(.get, "/v1/orders/\(other)", token: mine).status == .forbidden)
            #expect(try await client.send(.get, "/v1/orders/\(anonymous)", token: mine).status == .forbidden)
            #expect(try await client.send(.post, "/v1/orders/\(own)/cancel", token: mine).status == .forbidden)
            #expect(
                try await client.send(.put, "/v1/users/u-1/preferences/theme", token: mine, rawBody: #""dark""#).status
                    == .ok)
            #expect(
                try await client.send(.put, "/v1/users/u-2/preferences/theme", token: mine, rawBody: #""dark""#).status
                    == .forbidden)
            #expect(try await client.send(.post, "/v1/users/u-1/cafe", token: mine).status == .ok)
            #expect(try await client.send(.post, "/v1/users/u-2/cafe", token: mine).status == .forbidden)
            #expect(try await client.send(.get, "/v1/cafes/testcafe/menu", token: mine).status == .ok)
        }
        #expect(try await environment.stores.preferences.document(userID: "u-2").values.isEmpty)
    }
}
