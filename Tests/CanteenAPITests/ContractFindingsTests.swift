import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What contract fuzzing (schemathesis against openapi.yaml) found, kept as tests: the server
/// and the document now agree on these.
@Suite("contract findings: the server answers as openapi.yaml says")
struct ContractFindingsTests {
    @Test("optional request fields may be null, as the document now says: null reads as absent")
    func nullOptionalFields() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client async throws in
            let order = try await client.send(
                .post, "/v1/orders", token: environment.kiosk,
                json: [
                    "cafeId": "testcafe", "pickup": .null,
                    "lines": [["itemId": "latte", "quantity": 1, "options": ["small"], "note": .null]],
                    "customer": ["name": "Ana", "userId": .null],
                ],
                headers: [HTTPField.Name("Idempotency-Key")!: "null-1"])
            #expect(order.status == .created, "\(String(buffer: order.body))")
            let locate = try await client.send(
                .post, "/v1/locate", token: environment.kiosk,
                json: [
                    "sightings": [
                        [
                            "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 900, "minor": 1, "rssi": -60,
                            "time": .null, "txPower": .null,
                        ]
                    ], "currentCafeId": .null,
                ])
            #expect(locate.status == .ok, "\(String(buffer: locate.body))")
            let item = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.ops,
                json: ["soldOut": true, "soldOutUntil": .null, "price": .null])
            #expect(item.status == .ok, "\(String(buffer: item.body))")
            let beacon = try await client.send(
                .put, "/v1/beacons/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/900/5", token: environment.ops,
                json: ["cafeId": "testcafe", "measuredPower": -59, "label": .null])
            #expect(beacon.status == .created, "\(String(buffer: beacon.body))")
        }
    }

    @Test("a preference value of null is refused (the document says: any JSON but null)")
    func nullPreferenceValue() async throws {
        let environment = try await TestEnvironment.make()
        let response = try await withRouter(environment) { client async throws in
            try await client.send(.put, "/v1/users/u-1/preferences/theme", token: environment.kiosk, rawBody: "null")
        }
        #expect(response.status == .unprocessableContent)
        #expect(response.errorCode == "invalid_preference")
    }

    @Test(
        "every body-taking route answers 415 for a body that is not JSON, 413 above 1 MiB, 400 for broken JSON",
        arguments: [
            (HTTPRequest.Method.post, "/v1/tickets/tkt_x/status"), (.post, "/v1/orders"),
            (.put, "/v1/cafes/testcafe/menu"),
            (.patch, "/v1/cafes/testcafe/menu/items/latte"),
            (.put, "/v1/beacons/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/900/5"),
            (.post, "/v1/cards"), (.post, "/v1/cards/identify"), (.post, "/v1/tokens"),
        ])
    func bodyStatuses(method: HTTPRequest.Method, path: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client async throws in
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "b-1"]
            let text = try await client.send(
                method, path, token: environment.ops, rawBody: "{}",
                headers: key.merging([.contentType: "text/plain"]))
            #expect(text.status == .unsupportedMediaType, "\(path)")
            let big = try await client.send(
                method, path, token: environment.ops,
                rawBody: "[" + String(repeating: "0,", count: 600_000) + "0]", headers: key)
            #expect(big.status == .contentTooLarge, "\(path)")
            let broken = try await client.send(method, path, token: environment.ops, rawBody: "{", headers: key)
            #expect(broken.status == .badRequest, "\(path)")
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged[field.name] = field.value }
        return merged
    }
}
