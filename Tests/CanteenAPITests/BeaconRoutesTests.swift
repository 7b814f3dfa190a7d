import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The beacon registry over HTTP")
struct BeaconRoutesTests {
    static let path = "/v1/beacons/\(TestBeacons.uuid)/900/7"
    static let body: JSONValue = ["cafeId": "testcafe", "label": "Espresso bar", "measuredPower": -61]

    @Test("the registry routes need a token (401) and the ops role (403)")
    func authorization() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for (method, body) in [(HTTPRequest.Method.get, nil), (.put, Self.body), (.delete, nil)]
                as [(HTTPRequest.Method, JSONValue?)]
            {
                let uri = method == .get ? "/v1/beacons" : Self.path
                let anonymous = try await client.send(method, uri, json: body)
                #expect(anonymous.status == .unauthorized, "\(method) \(uri)")
                for token in [environment.kiosk, environment.kitchen, environment.boundKiosk] {
                    let response = try await client.send(method, uri, token: token, json: body)
                    #expect(response.status == .forbidden, "\(method) \(uri)")
                }
            }
        }
        #expect(try await environment.rowCount("beacon") == 2)
    }

    @Test("the registry lists the beacons the café documents placed")
    func listsCafeBeacons() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/beacons", token: environment.ops)
            #expect(response.status == .ok)
            #expect(
                try response.json == [
                    "beacons": [
                        [
                            "uuid": .string(TestBeacons.uuid), "major": 900, "minor": 1, "cafeId": "testcafe",
                            "label": "Door", "measuredPower": -59,
                        ],
                        [
                            "uuid": .string(TestBeacons.uuid), "major": 901, "minor": 1, "cafeId": "othercafe",
                            "label": "Door", "measuredPower": -59,
                        ],
                    ]
                ])
        }
    }

    @Test("a beacon put (201, then 200 when replaced) is listed and shows in its café's beacons")
    func putThenGet() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let versionBefore = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops).json[
                "menuVersion"]
            let created = try await client.send(.put, Self.path.lowercased(), token: environment.ops, json: Self.body)
            #expect(created.status == .created)
            #expect(
                try created.json == [
                    "uuid": .string(TestBeacons.uuid), "major": 900, "minor": 7, "cafeId": "testcafe",
                    "label": "Espresso bar", "measuredPower": -61,
                ])
            let replaced = try await client.send(
                .put, Self.path, token: environment.ops,
                json: ["cafeId": "testcafe", "measuredPower": -63])
            #expect(replaced.status == .ok)
            let list = try await client.send(.get, "/v1/beacons", token: environment.ops).json
            #expect(
                list["beacons", 1] == [
                    "uuid": .string(TestBeacons.uuid), "major": 900, "minor": 7, "cafeId": "testcafe",
                    "label": "", "measuredPower": -63,
                ])
            let cafe = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops).json
            #expect(
                cafe["beacons"] == [
                    ["minor": 1, "label": "Door", "measuredPower": -59],
                    ["minor": 7, "label": "", "measuredPower": -63],
                ])
            #expect(cafe["menuVersion"] != versionBefore)
        }
    }

    @Test("a café document saved back unchanged keeps the beacons registered over the API")
    func cafeDocumentKeepsBeacons() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.send(.put, Self.path, token: environment.ops, json: Self.body)
            let cafe = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops).json
            let saved = try await client.send(.put, "/v1/cafes/testcafe", token: environment.ops, json: cafe)
            #expect(saved.status == .ok)
            let list = try await client.send(.get, "/v1/beacons", token: environment.ops).json
            #expect(list["beacons", 1, "minor"] == 7)
        }
    }

    @Test("a beacon deleted is gone from the registry and its café (204), and a second delete is 404")
    func delete() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let path = "/v1/beacons/\(TestBeacons.uuid)/900/1"
            let deleted = try await client.send(.delete, path, token: environment.ops)
            #expect(deleted.status == .noContent)
            let cafe = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops).json
            #expect(cafe["beacons"] == [])
            let again = try await client.send(.delete, path, token: environment.ops)
            #expect(again.status == .notFound)
            #expect(again.errorCode == "beacon_not_found")
        }
        #expect(try await environment.rowCount("beacon") == 1)
    }

    @Test(
        "bad registrations are refused naming the field, and change nothing",
        arguments: [
            ("/v1/beacons/not-a-uuid/900/7", body, "uuid", "invalid_field"),
            ("/v1/beacons/\(TestBeacons.uuid)/65536/7", body, "major", "out_of_range"),
            ("/v1/beacons/\(TestBeacons.uuid)/900/-1", body, "minor", "out_of_range"),
            (path, ["cafeId": "testcafe", "measuredPower": -128] as JSONValue, "measuredPower", "out_of_range"),
            (path, ["cafeId": "testcafe", "measuredPower": 21] as JSONValue, "measuredPower", "out_of_range"),
            (
                path, ["cafeId": "testcafe", "measuredPower": .double(-59.5)] as JSONValue, "measuredPower",
                "invalid_type"
            ),
            (path, ["cafeId": "testcafe"] as JSONValue, "measuredPower", "missing_field"),
            (path, ["cafeId": "testcafe", "measuredPower": -59, "power": 1] as JSONValue, "power", "unknown_field"),
            (path, ["cafeId": "nowhere", "measuredPower": -59] as JSONValue, "cafeId", "unknown_cafe"),
            ("/v1/beacons/\(TestBeacons.uuid)/901/7", body, "cafeId", "beacon_outside_region"),
            ("/v1/beacons/00000000-0000-0000-0000-000000000001/900/7", body, "cafeId", "beacon_outside_region"),
        ] as [(String, JSONValue, String, String)])
    func validation(path: String, body: JSONValue, field: String, code: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.put, path, token: environment.ops, json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorField == field)
            #expect(response.errorCode == code)
        }
        #expect(try await environment.rowCount("beacon") == 2)
    }

    @Test("a body that is not an object is refused")
    func notAnObject() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.put, Self.path, token: environment.ops, json: [1, 2])
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == "invalid_type")
            let malformed = try await client.send(.put, Self.path, token: environment.ops, rawBody: "{\"cafeId\": ")
            #expect(malformed.status == .badRequest)
        }
    }

    @Test("a beacon cannot be given to a café whose region it lies outside")
    func otherCafesRegion() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let moved = try await client.send(
                .put, "/v1/beacons/\(TestBeacons.uuid)/900/1", token: environment.ops,
                json: ["cafeId": "othercafe", "measuredPower": -59])
            #expect(moved.status == .unprocessableContent)
            #expect(moved.errorCode == "beacon_outside_region")
        }
    }
}
