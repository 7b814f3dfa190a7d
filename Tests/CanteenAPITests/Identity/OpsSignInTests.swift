import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Ops signed in with the company's identity provider (members of `--oidc-ops-group`), as the
/// console `/ops` uses it: their changes are audited under their user id, a person outside the
/// group is told why they are refused, and `/ops` knows whether to offer the company sign-in.
@Suite("Ops signed in with the company's identity provider")
struct OpsSignInTests {
    static let origin = SignInFixture.defaultPublicURL

    @Test("a change made by an ops-group member through the session cookie is audited under their user id")
    func auditedSession() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                // Given olga (in the ops group) signed in
                let olga = try await fixture.session(client, user: "olga")
                // When she changes a price through her session
                let changed = try await fixture.send(
                    client, .patch, "/v1/cafes/testcafe/menu/items/salad", cookie: olga, origin: Self.origin,
                    json: ["price": 800])
                #expect(changed.status == .ok)
                // Then the audit log names her user id, and no token (a session is not one)
                let log = try await client.send(.get, "/v1/audit", token: fixture.environment.ops).json
                #expect(log["entries", 0, "action"] == "item.change")
                #expect(
                    log["entries", 0, "actor"]
                        == ["tokenId": .null, "tokenName": .null, "role": "ops", "userId": "u-olga"])
                #expect(log["entries", 0, "changes", 0] == ["field": "price", "before": 750, "after": 800])
            }
        }
    }

    @Test("a change made with the provider's access token of an ops-group member is audited under their user id")
    func auditedAccessToken() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let token = try await fixture.provider.mint(user: "olga")
                let changed = try await client.send(
                    .patch, "/v1/cafes/testcafe/menu/items/latte", token: token, json: ["soldOut": true])
                #expect(changed.status == .ok)
                let log = try await client.send(.get, "/v1/audit", token: fixture.environment.ops).json
                #expect(
                    log["entries", 0, "actor"]
                        == ["tokenId": .null, "tokenName": .null, "role": "ops", "userId": "u-olga"])
            }
        }
    }

    @Test("a signed-in person outside the ops group is told that ops work needs the ops group")
    func outsideTheGroup() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let alice = try await fixture.session(client, user: "alice")
                let refused = try await fixture.send(client, .get, "/v1/tokens", cookie: alice)
                #expect(refused.status == .forbidden)
                #expect(refused.errorCode == "forbidden")
                let message = try #require(try refused.json["error", "message"]?.stringValue)
                #expect(message.contains("u-alice"), "\(message)")
                #expect(message.contains("not in the ops group"), "\(message)")
                #expect(!message.contains("token"), "a signed-in person has no token: \(message)")
                // An ops token's refusal still speaks of tokens.
                let kiosk = try await client.send(.get, "/v1/tokens", token: fixture.environment.kiosk)
                #expect(try kiosk.json["error", "message"] == "a kiosk token cannot do this; it needs ops")
            }
        }
    }

    @Test("/ops says whether the company sign-in is offered, and sends the session cookie with its calls")
    func pageKnowsSignIn() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let html = PageRoutesTests.html(try await client.send(.get, "/ops"))
                #expect(Self.attribute("data-sign-in", in: html) == "provider")
                #expect(Self.attribute("data-credentials", in: html) == "same-origin")
            }
        }
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let html = PageRoutesTests.html(try await client.send(.get, "/ops"))
            #expect(Self.attribute("data-sign-in", in: html) == "tokens")
        }
    }

    /// The value of `name` on the page's `<html>` element.
    static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "<html "), let end = html[start.upperBound...].firstIndex(of: ">"),
            let attribute = html[start.upperBound..<end].range(of: " \(name)=\"")
        else { return nil }
        let rest = html[attribute.upperBound..<end]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
