import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("POST /v1/cards and /v1/cards/identify")
struct CardRoutesTests {
    static let card: JSONValue = ["technology": "type2", "identifier": "04:A2:5C:1A:2B:3C:80"]

    @Test("ops register a card; a kiosk tap identifies the user, display name and preferred café")
    func registerAndIdentify() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let created = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": "ana", "displayName": "Ana", "technology": "type2", "identifier": "04a25c1a2b3c80",
                ])
            #expect(created.status == .created)
            #expect(try created.json == ["userId": "ana", "displayName": "Ana", "technology": "type2"])
            let tap = try await client.send(.post, "/v1/cards/identify", token: environment.boundKiosk, json: Self.card)
            #expect(tap.status == .ok)
            #expect(try tap.json == ["userId": "ana", "displayName": "Ana", "technology": "type2"])
            _ = try await client.send(
                .put, "/v1/users/ana/preferences/defaultLocation", token: environment.ops, json: "testcafe")
            let again = try await client.send(.post, "/v1/cards/identify", token: environment.kiosk, json: Self.card)
            #expect(try again.json["preferredCafeId"] == "testcafe")
        }
    }

    @Test("an unknown card is card_not_registered; a kiosk cannot register; a bad identifier names its field")
    func refusals() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let unknown = try await client.send(.post, "/v1/cards/identify", token: environment.kiosk, json: Self.card)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "card_not_registered")
            let kiosk = try await client.send(
                .post, "/v1/cards", token: environment.kiosk,
                json: [
                    "userId": "ana", "technology": "type2", "identifier": "04A25C1A2B3C80",
                ])
            #expect(kiosk.status == .forbidden)
            let bad = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk,
                json: ["technology": "type2", "identifier": "xyz"])
            #expect(bad.status.code == 400 || bad.status.code == 422)
            #expect(bad.errorCode == "invalid_card_identifier")
            #expect(bad.errorField == "identifier")
            let taken = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": "ana", "technology": "type2", "identifier": "04A25C1A2B3C80",
                ])
            #expect(taken.status == .created)
            let other = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": "bo", "technology": "type2", "identifier": "04A25C1A2B3C80",
                ])
            #expect(other.status == .conflict)
            #expect(other.errorCode == "card_already_registered")
        }
    }
}
