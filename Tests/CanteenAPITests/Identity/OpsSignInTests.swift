import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Ops signed in with the company's identity provider (members of `--oidc-ops-group`): their
/// changes are audited under their user id.
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
}
