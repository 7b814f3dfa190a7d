import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("POST /v1/locate")
struct LocateRoutesTests {
    @Test("the nearest registered beacon's café is chosen, with proximity, distance and the beacon")
    func nearest() async throws {
        let environment = try await TestEnvironment.make()
        let sightings =
            TestBeacons.sightings(major: 901, rssi: -75, from: 0, to: 3)
            + TestBeacons.sightings(major: 900, rssi: -59, from: 0, to: 3)
        try await withRouter(environment) { client in
            let response = try await client.send(
                .post, "/v1/locate", token: environment.kiosk, json: TestBeacons.body(sightings))
            #expect(response.status == .ok)
            let json = try response.json
            #expect(json["cafeId"] == "testcafe")
            #expect(json["reason"] == "nearest_beacon")
            #expect(json["proximity"] == "near")
            #expect(json["distanceMeters"] == .int(1) || json["distanceMeters"] == .double(1))
            #expect(
                json["beacon"] == [
                    "uuid": .string(TestBeacons.uuid), "major": 900, "minor": 1, "cafeId": "testcafe",
                    "label": "Door", "measuredPower": -59,
                ])
        }
    }

    @Test("unregistered beacons are ignored; with none registered the café is null with a reason")
    func unknownOnly() async throws {
        let environment = try await TestEnvironment.make()
        let sightings =
            TestBeacons.sightings(major: 777, rssi: -50, from: 0, to: 2)
            + TestBeacons.sightings(major: 900, uuid: "11111111-2222-3333-4444-555555555555", rssi: -40, from: 0, to: 2)
        try await withRouter(environment) { client in
            let response = try await client.send(
                .post, "/v1/locate", token: environment.ops, json: TestBeacons.body(sightings))
            #expect(response.status == .ok)
            #expect(
                try response.json == [
                    "cafeId": .null, "proximity": "unknown", "distanceMeters": .null, "beacon": .null,
                    "reason": "no_known_beacon",
                ])
            let empty = try await client.send(.post, "/v1/locate", token: environment.ops, json: TestBeacons.body([]))
            #expect(try empty.json["reason"] == "no_known_beacon")
            let mixed = try await client.send(
                .post, "/v1/locate", token: environment.ops,
                json: TestBeacons.body(sightings + TestBeacons.sightings(major: 901, rssi: -70, from: 0, to: 2)))
            #expect(try mixed.json["cafeId"] == "othercafe")
        }
    }

    @Test("the current café keeps its place when another is nearer only briefly, and loses it after the dwell")
    func hysteresis() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let brief =
                TestBeacons.sightings(major: 901, rssi: -75, from: 0, to: 1)
                + TestBeacons.sightings(major: 900, rssi: -59, from: 0, to: 1)
            let kept = try await client.send(
                .post, "/v1/locate", token: environment.kiosk,
                json: TestBeacons.body(brief, current: "othercafe"))
            #expect(try kept.json["cafeId"] == "othercafe")
            #expect(try kept.json["reason"] == "current_cafe_kept")

            let long =
                TestBeacons.sightings(major: 901, rssi: -75, from: 0, to: 5)
                + TestBeacons.sightings(major: 900, rssi: -59, from: 0, to: 5)
            let switched = try await client.send(
                .post, "/v1/locate", token: environment.kiosk,
                json: TestBeacons.body(long, current: "othercafe"))
            #expect(try switched.json["cafeId"] == "testcafe")
            #expect(try switched.json["reason"] == "switched_after_dwell")

            let noCurrent = try await client.send(
                .post, "/v1/locate", token: environment.kiosk, json: TestBeacons.body(brief))
            #expect(try noCurrent.json["cafeId"] == "testcafe")
        }
    }

    @Test("a beacon registered over the API is used by the next locate")
    func registryIsLive() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let sightings = TestBeacons.sightings(major: 900, minor: 9, rssi: -60, from: 0, to: 2)
            let before = try await client.send(
                .post, "/v1/locate", token: environment.kiosk, json: TestBeacons.body(sightings))
            #expect(try before.json["cafeId"] == .null)
            _ = try await client.send(
                .put, "/v1/beacons/\(TestBeacons.uuid)/900/9", token: environment.ops,
                json: ["cafeId": "testcafe", "label": "Grill", "measuredPower": -60])
            let after = try await client.send(
                .post, "/v1/locate", token: environment.kiosk, json: TestBeacons.body(sightings))
            #expect(try after.json["cafeId"] == "testcafe")
            #expect(try after.json["beacon", "label"] == "Grill")
        }
    }

    @Test(
        "bad input is refused with 4xx naming the field",
        arguments: [
            (["sightings": "none"] as JSONValue, "sightings", "invalid_type"),
            ([:] as JSONValue, "sightings", "missing_field"),
            (
                ["sightings": [["uuid": "nope", "major": 1, "minor": 1, "rssi": -60]]] as JSONValue,
                "sightings[0].uuid", "invalid_field"
            ),
            (
                ["sightings": [["uuid": .string(TestBeacons.uuid), "major": 70000, "minor": 1, "rssi": -60]]]
                    as JSONValue,
                "sightings[0].major", "out_of_range"
            ),
            (
                ["sightings": [["uuid": .string(TestBeacons.uuid), "major": 1, "minor": 1, "rssi": 127]]] as JSONValue,
                "sightings[0].rssi", "out_of_range"
            ),
            (
                [
                    "sightings": [
                        ["uuid": .string(TestBeacons.uuid), "major": 1, "minor": 1, "rssi": -60, "time": "yesterday"]
                    ]
                ] as JSONValue,
                "sightings[0].time", "invalid_field"
            ),
            (
                ["sightings": [["uuid": .string(TestBeacons.uuid), "major": 1, "minor": 1, "distance": 3]]]
                    as JSONValue,
                "sightings[0].distance", "unknown_field"
            ),
            (["sightings": [], "currentCafeId": 5] as JSONValue, "currentCafeId", "invalid_type"),
            (
                [
                    "sightings": .array(
                        Array(
                            repeating: ["uuid": .string(TestBeacons.uuid), "major": 1, "minor": 1] as JSONValue,
                            count: 501))
                ] as JSONValue,
                "sightings", "too_many_sightings"
            ),
        ] as [(JSONValue, String, String)])
    func badInput(body: JSONValue, field: String, code: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.post, "/v1/locate", token: environment.kiosk, json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorField == field)
            #expect(response.errorCode == code)
        }
    }

    @Test("locate needs a kiosk or ops token, and a body")
    func authorizationAndBody() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let body = TestBeacons.body([])
            #expect(try await client.send(.post, "/v1/locate", json: body).status == .unauthorized)
            #expect(
                try await client.send(.post, "/v1/locate", token: environment.kitchen, json: body).status == .forbidden)
            #expect(try await client.send(.post, "/v1/locate", token: environment.boundKiosk, json: body).status == .ok)
            let empty = try await client.send(.post, "/v1/locate", token: environment.kiosk)
            #expect(empty.status == .badRequest)
            #expect(empty.errorCode == "malformed_json")
        }
    }
}
