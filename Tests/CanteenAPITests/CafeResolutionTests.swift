import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("POST /v1/users/{userId}/cafe")
struct CafeResolutionTests {
    /// Sightings that place the device in `testcafe` (othercafe's beacon much weaker).
    static let nearTestCafe = TestBeacons.body(
        TestBeacons.sightings(major: 901, rssi: -80, from: 0, to: 3)
            + TestBeacons.sightings(major: 900, rssi: -59, from: 0, to: 3))

    static func prefer(_ environment: TestEnvironment, _ user: String, _ location: JSONValue) async throws {
        _ = try await environment.stores.preferences.update(
            userID: user, changes: ["defaultLocation": .set(location)],
            condition: nil)
    }

    @Test("a preferred café that exists is chosen, whatever the sightings say")
    func preferred() async throws {
        let environment = try await TestEnvironment.make()
        try await Self.prefer(environment, "ana", "othercafe")
        try await withRouter(environment) { client in
            let response = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk, json: Self.nearTestCafe)
            #expect(response.status == .ok)
            let json = try response.json
            #expect(json["cafe", "id"] == "othercafe")
            #expect(json["cafe", "beacons"] == [["minor": 1, "label": "Door", "measuredPower": -59]])
            #expect(json["reason"] == "preferred")
            #expect(json["detail"]?.stringValue?.contains("defaultLocation") == true)
        }
    }

    @Test("a site default location naming a café is the preferred café of users without their own")
    func sitePreferred() async throws {
        let environment = try await TestEnvironment.make()
        try await environment.stores.preferences.setSiteDefault(key: "defaultLocation", value: "othercafe")
        try await withRouter(environment) { client in
            let json = try await client.send(.post, "/v1/users/ana/cafe", token: environment.kiosk).json
            #expect(json["cafe", "id"] == "othercafe")
            #expect(json["reason"] == "preferred")
            #expect(json["detail"]?.stringValue?.contains("site") == true)
        }
    }

    @Test("a preferred café deleted since falls back, and the detail says it is gone")
    func preferredDeleted() async throws {
        let environment = try await TestEnvironment.make()
        try await environment.stores.cafes.importCafes([try Fixtures.cafeAndMenu(id: "gonecafe", major: 902)])
        try await Self.prefer(environment, "ana", "gonecafe")
        try await withRouter(environment) { client in
            let deleted = try await client.send(.delete, "/v1/cafes/gonecafe", token: environment.ops)
            #expect(deleted.status == .noContent)
            let response = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk, json: Self.nearTestCafe)
            let json = try response.json
            #expect(json["reason"] == "fallback")
            #expect(json["cafe", "id"] == "othercafe")
            let detail = try #require(json["detail"]?.stringValue)
            #expect(detail.contains("'gonecafe'") && detail.contains("no longer exists"))
        }
    }

    @Test("with \"nearest\" and usable sightings the ranging engine's café is chosen")
    func nearest() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let json = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk, json: Self.nearTestCafe
            ).json
            #expect(json["cafe", "id"] == "testcafe")
            #expect(json["reason"] == "nearest")
            #expect(json["detail"]?.stringValue?.contains("Door") == true)
        }
    }

    @Test(
        "\"nearest\" without sightings falls back to the most recent order's café, then the site default, then the first café"
    )
    func fallbackChain() async throws {
        let environment = try await TestEnvironment.make()
        try await Self.prefer(environment, "u-ada", "nearest")
        try await withRouter(environment) { client in
            // No order, no site default: the first café by id.
            var json = try await client.send(.post, "/v1/users/u-ada/cafe", token: environment.kiosk).json
            #expect(json["cafe", "id"] == "othercafe")
            #expect(json["reason"] == "fallback")
            #expect(json["detail"]?.stringValue?.contains("first café") == true)
            #expect(json["detail"]?.stringValue?.contains("no sightings") == true)

            // A site default café.
            try await environment.stores.preferences.setSiteDefault(key: "defaultLocation", value: "testcafe")
            json = try await client.send(.post, "/v1/users/u-ada/cafe", token: environment.kiosk).json
            #expect(json["cafe", "id"] == "testcafe")
            #expect(json["detail"]?.stringValue?.contains("site default café") == true)

            // An order (orderBody's customer is u-ada) wins over the site default.
            let order = try await client.placeOrder(orderBody(cafe: "othercafe"), token: environment.kiosk)
            #expect(order.status == .created)
            json = try await client.send(.post, "/v1/users/u-ada/cafe", token: environment.kiosk).json
            #expect(json["cafe", "id"] == "othercafe")
            #expect(json["reason"] == "fallback")
            #expect(json["detail"]?.stringValue?.contains("most recent order") == true)

            // A café with orders cannot be deleted.
            let refused = try await client.send(.delete, "/v1/cafes/othercafe", token: environment.ops)
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "cafe_in_use")
        }
    }

    @Test(
        "an empty sightings list (permission denied) and unknown beacons fall back, saying why",
        arguments: [
            (TestBeacons.body([]), "sightings list is empty"),
            (TestBeacons.body(TestBeacons.sightings(major: 555, rssi: -60, from: 0, to: 1)), "registered beacon"),
        ] as [(JSONValue, String)])
    func unusableSightings(body: JSONValue, reason: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let json = try await client.send(.post, "/v1/users/ana/cafe", token: environment.kiosk, json: body).json
            #expect(json["reason"] == "fallback")
            #expect(json["cafe", "id"] == "othercafe")
            #expect(json["detail"]?.stringValue?.contains(reason) == true)
        }
    }

    @Test("the menuETag is the ETag the menu route answers for the chosen café")
    func menuETag() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let json = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk, json: Self.nearTestCafe
            ).json
            let etag = try #require(json["menuETag"]?.stringValue)
            let menu = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(menu.headers[.eTag] == etag)
            let revalidated = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.ifNoneMatch: etag])
            #expect(revalidated.status == .notModified)
            // Sold out items change the menu's ETag; the resolution follows.
            _ = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.ops, json: ["soldOut": true])
            let after = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk, json: Self.nearTestCafe
            ).json
            let newMenu = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(after["menuETag"]?.stringValue == newMenu.headers[.eTag])
            #expect(after["menuETag"]?.stringValue != etag)
        }
    }

    @Test("a kiosk bound to one café is only ever answered with that café")
    func boundKiosk() async throws {
        let environment = try await TestEnvironment.make()
        try await Self.prefer(environment, "ana", "othercafe")
        let nearOther = TestBeacons.body(TestBeacons.sightings(major: 901, rssi: -59, from: 0, to: 3))
        try await withRouter(environment) { client in
            let preferredElsewhere = try await client.send(.post, "/v1/users/ana/cafe", token: environment.boundKiosk)
                .json
            #expect(preferredElsewhere["cafe", "id"] == "testcafe")
            #expect(preferredElsewhere["reason"] == "fallback")
            #expect(preferredElsewhere["detail"]?.stringValue?.contains("does not serve") == true)

            let nearestElsewhere = try await client.send(
                .post, "/v1/users/bo/cafe", token: environment.boundKiosk, json: nearOther
            ).json
            #expect(nearestElsewhere["cafe", "id"] == "testcafe")
            #expect(nearestElsewhere["reason"] == "fallback")

            let nearestHere = try await client.send(
                .post, "/v1/users/bo/cafe", token: environment.boundKiosk, json: Self.nearTestCafe
            ).json
            #expect(nearestHere["cafe", "id"] == "testcafe")
            #expect(nearestHere["reason"] == "nearest")
        }
    }

    @Test("resolution needs a kiosk or ops token, a valid user id and a valid body")
    func badRequests() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            #expect(try await client.send(.post, "/v1/users/ana/cafe").status == .unauthorized)
            #expect(try await client.send(.post, "/v1/users/ana/cafe", token: environment.kitchen).status == .forbidden)
            let badUser = try await client.send(.post, "/v1/users/a%20b/cafe", token: environment.kiosk)
            #expect(badUser.status == .unprocessableContent)
            let badBody = try await client.send(
                .post, "/v1/users/ana/cafe", token: environment.kiosk,
                json: ["sightings": [["uuid": "x", "major": 1, "minor": 1]]])
            #expect(badBody.status == .unprocessableContent)
            #expect(badBody.errorField == "sightings[0].uuid")
            #expect(try await client.send(.post, "/v1/users/ana/cafe", token: environment.ops).status == .ok)
        }
    }
}
