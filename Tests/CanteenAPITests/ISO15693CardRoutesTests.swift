import CanteenAPI
import CanteenCore
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// An ISO 15693 UID has two spellings: most significant byte first (`E0…`, the tag's label, what `canteen nfc read`
/// prints) and the order on the air (`…E0`, what older Canteen printed). Both name one card.
@Suite("ISO 15693 badges in either byte order")
struct ISO15693CardRoutesTests {
    static let label = "E0:04:01:08:12:34:56:78"
    static let air = "78563412080104E0"

    static func card(_ identifier: String) -> JSONValue {
        ["technology": "iso15693", "identifier": .string(identifier)]
    }

    @Test("a badge registered from its label is named when tapped with the bytes as read over the air, and back")
    func registeredOneWayTappedTheOther() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given Ada's badge registered from its label, and Grace's from a reader's output of old
            let ada = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: [
                    "userId": "u-ada", "displayName": "Ada", "technology": "iso15693",
                    "identifier": .string(Self.label),
                ])
            #expect(ada.status == .created)
            let grace = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: ["userId": "u-grace", "technology": "iso15693", "identifier": "01020304050607E0"])
            #expect(grace.status == .created)

            // When each is tapped in the other spelling, through identify and through the agent's taps
            let adaTapped = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk, json: Self.card(Self.air))
            let graceTapped = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk, json: Self.card("E007060504030201"))
            let agent = try await client.send(.post, "/v1/taps", token: environment.kiosk, json: Self.card(Self.air))

            // Then both are known, and registering Ada's badge again the other way is still Ada's one card
            #expect(adaTapped.status == .ok)
            #expect(try adaTapped.json["userId"] == "u-ada")
            #expect(try graceTapped.json["userId"] == "u-grace")
            #expect(agent.status == .created)
            #expect(try agent.json["user", "userId"] == "u-ada")
            let stolen = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: ["userId": "u-bob", "technology": "iso15693", "identifier": .string(Self.air)])
            #expect(stolen.status == .conflict)
            #expect(stolen.errorCode == "card_already_registered")
        }
    }

    @Test("a badge enrolled at a kiosk in one byte order is identified in the other")
    func enrolledOneWayTappedTheOther() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let made = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops, json: ["userId": "u-lin", "displayName": "Lin"])
            let code = try #require(try made.json["code"]?.stringValue)
            let enrolled = try await client.send(
                .post, "/v1/cards/enrol", token: environment.kiosk,
                json: ["code": .string(code), "technology": "iso15693", "identifier": .string(Self.air)])
            #expect(enrolled.status == .created)
            let tapped = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk, json: Self.card(Self.label))
            #expect(tapped.status == .ok)
            #expect(try tapped.json["displayName"] == "Lin")
            // Another technology's identifier is not turned round: a Type 2 UID ending in E0 is another card.
            _ = try await client.send(
                .post, "/v1/cards", token: environment.ops,
                json: ["userId": "u-ana", "technology": "type2", "identifier": "0401020304E0"])
            let reversed = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk,
                json: ["technology": "type2", "identifier": "E00403020104"])
            #expect(reversed.errorCode == "card_not_registered")
        }
    }
}
