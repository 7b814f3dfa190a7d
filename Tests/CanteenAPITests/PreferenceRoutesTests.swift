import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("User preferences over HTTP")
struct PreferenceRoutesTests {
    static let userRoutes: [(HTTPRequest.Method, String)] = [
        (.get, "/v1/users/ana/preferences"), (.patch, "/v1/users/ana/preferences"),
        (.get, "/v1/users/ana/preferences/locale"), (.put, "/v1/users/ana/preferences/locale"),
        (.delete, "/v1/users/ana/preferences/locale"),
    ]
    static let siteRoutes: [(HTTPRequest.Method, String)] = [
        (.get, "/v1/preferences/defaults"), (.get, "/v1/preferences/defaults/locale"),
        (.put, "/v1/preferences/defaults/locale"), (.delete, "/v1/preferences/defaults/locale"),
    ]

    // MARK: - Reading

    @Test("a user who never wrote sees the registered defaultLocation, at version 0")
    func fresh() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/users/ana/preferences", token: environment.kiosk)
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] == "\"0\"")
            #expect(
                try response.json == [
                    "values": ["defaultLocation": "nearest"],
                    "sources": ["defaultLocation": "registered"], "version": 0,
                ])
            let one = try await client.send(.get, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk)
            #expect(try one.json == ["key": "defaultLocation", "value": "nearest", "source": "registered"])
        }
    }

    @Test("a key no domain has is 404 preference_not_found naming it")
    func missingKey() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/v1/users/ana/preferences/app.theme", token: environment.kiosk)
            #expect(response.status == .notFound)
            #expect(response.errorCode == "preference_not_found")
            #expect(response.errorField == "app.theme")
        }
    }

    @Test("each key says whether the user, the site or the product answered it")
    func sources() async throws {
        let environment = try await TestEnvironment.make()
        try await environment.stores.preferences.setSiteDefault(key: "locale", value: "en-US")
        try await environment.stores.preferences.setSiteDefault(key: "app.banner", value: true)
        try await withRouter(environment) { client in
            _ = try await client.send(
                .put, "/v1/users/ana/preferences/app.banner", token: environment.kiosk, json: false)
            let response = try await client.send(.get, "/v1/users/ana/preferences", token: environment.ops)
            #expect(
                try response.json["values"] == ["defaultLocation": "nearest", "locale": "en-US", "app.banner": false])
            #expect(
                try response.json["sources"] == [
                    "defaultLocation": "registered", "locale": "site", "app.banner": "user",
                ])
            #expect(try response.json["version"] == 1)
        }
    }

    // MARK: - Writing

    @Test("PUT stores any JSON value under a key and answers the new ETag")
    func put() async throws {
        let environment = try await TestEnvironment.make()
        let value: JSONValue = ["size": "large", "extras": ["oat milk"], "count": 2, "ratio": .double(0.1), "none": []]
        try await withRouter(environment) { client in
            let response = try await client.send(
                .put, "/v1/users/ana/preferences/app.usual", token: environment.kiosk, json: value)
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] == "\"1\"")
            #expect(try response.json == ["key": "app.usual", "value": value, "source": "user"])
            let read = try await client.send(.get, "/v1/users/ana/preferences/app.usual", token: environment.boundKiosk)
            #expect(try read.json["value"] == value)
            #expect(read.headers[.eTag] == "\"1\"")
            let scalar = try await client.send(
                .put, "/v1/users/ana/preferences/app.count", token: environment.kiosk, rawBody: "42")
            #expect(try scalar.json["value"] == 42)
        }
    }

    @Test("a percent-encoded key is decoded: app%2Ftheme is app/theme")
    func encodedKey() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.send(
                .put, "/v1/users/ana/preferences/app%2Ftheme", token: environment.kiosk, json: "dark")
            #expect(try await environment.stores.preferences.document(userID: "ana").values == ["app/theme": "dark"])
        }
    }

    @Test("PATCH sets and removes keys in one write")
    func patch() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.send(
                .patch, "/v1/users/ana/preferences", token: environment.kiosk,
                json: ["locale": "es-MX", "app.a": 1, "app.b": 2])
            let response = try await client.send(
                .patch, "/v1/users/ana/preferences", token: environment.kiosk,
                json: ["app.a": .null, "app.b": 3, "defaultLocation": "testcafe"])
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] == "\"2\"")
            #expect(try response.json["values"] == ["locale": "es-MX", "app.b": 3, "defaultLocation": "testcafe"])
            #expect(try response.json["sources", "defaultLocation"] == "user")
            #expect(try response.json["version"] == 2)
        }
    }

    @Test("DELETE removes the user's value so the key falls through; deleting again is 404")
    func delete() async throws {
        let environment = try await TestEnvironment.make()
        try await environment.stores.preferences.setSiteDefault(key: "defaultLocation", value: "othercafe")
        try await withRouter(environment) { client in
            _ = try await client.send(
                .put, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk, json: "testcafe")
            let deleted = try await client.send(
                .delete, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk)
            #expect(deleted.status == .noContent)
            #expect(deleted.headers[.eTag] == "\"2\"")
            let read = try await client.send(
                .get, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk)
            #expect(try read.json == ["key": "defaultLocation", "value": "othercafe", "source": "site"])
            let again = try await client.send(
                .delete, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk)
            #expect(again.status == .notFound)
            #expect(again.errorCode == "preference_not_found")
        }
        #expect(try await environment.stores.preferences.document(userID: "ana").version == 2)
    }

    // MARK: - Bad input changes nothing

    @Test(
        "bad input is refused with a 4xx naming the key, and changes nothing",
        arguments: [
            (
                HTTPRequest.Method.put, "/v1/users/ana/preferences/defaultLocation", "\"nosuchcafe\"", 422,
                "invalid_preference", "defaultLocation"
            ),
            (.put, "/v1/users/ana/preferences/locale", "\"klingon language\"", 422, "invalid_preference", "locale"),
            (.put, "/v1/users/ana/preferences/app.x", "null", 422, "invalid_preference", "app.x"),
            (.put, "/v1/users/ana/preferences/app.x", "{not json", 400, "malformed_json", nil),
            (.put, "/v1/users/ana/preferences/app.x", "", 400, "malformed_json", nil),
            (
                .patch, "/v1/users/ana/preferences", "{\"app.y\": 1, \"defaultLocation\": \"gone\"}", 422,
                "invalid_preference", "defaultLocation"
            ),
            (.patch, "/v1/users/ana/preferences", "[1, 2]", 422, "invalid_preferences", nil),
            (.patch, "/v1/users/ana/preferences", "{\"a\": 1", 400, "malformed_json", nil),
            (
                .put, "/v1/users/ana/preferences/" + String(repeating: "k", count: 129), "1", 422,
                "preference_key_too_long",
                String(repeating: "k", count: 129)
            ),
            (.patch, "/v1/users/ana/preferences", "{\"\": 1}", 422, "invalid_preference_key", ""),
            (.put, "/v1/users/ana%20lopez/preferences/app.x", "1", 422, "invalid_field", "userId"),
            (
                .put, "/v1/users/" + String(repeating: "u", count: 129) + "/preferences/app.x", "1", 422,
                "invalid_field", "userId"
            ),
            (.get, "/v1/users/ana%ZZ/preferences", "", 422, "invalid_field", "userId"),
        ] as [(HTTPRequest.Method, String, String, Int, String, String?)])
    func badInput(
        _ method: HTTPRequest.Method, _ uri: String, _ body: String, _ status: Int, _ code: String,
        _ field: String?
    ) async throws {
        let environment = try await TestEnvironment.make()
        _ = try await environment.stores.preferences.update(
            userID: "ana", changes: ["app.keep": .set("me")], condition: nil)
        try await withRouter(environment) { client in
            let response = try await client.send(method, uri, token: environment.kiosk, rawBody: body)
            #expect(response.status.code == status)
            #expect(response.errorCode == code)
            #expect(response.errorField == field)
        }
        #expect(
            try await environment.stores.preferences.document(userID: "ana")
                == PreferenceDocument(values: ["app.keep": "me"], version: 1))
    }

    @Test("a document past 256 keys is too_many_preferences; past 64 KiB is preference_too_large")
    func limits() async throws {
        let environment = try await TestEnvironment.make()
        let keys = Dictionary(uniqueKeysWithValues: (0..<256).map { ("k\($0)", JSONValue.int(Int64($0))) })
        try await withRouter(environment) { client in
            let full = try await client.send(
                .patch, "/v1/users/ana/preferences", token: environment.kiosk, json: .object(keys))
            #expect(full.status == .ok)
            let over = try await client.send(.put, "/v1/users/ana/preferences/k256", token: environment.kiosk, json: 1)
            #expect(over.status == .unprocessableContent)
            #expect(over.errorCode == "too_many_preferences")
            #expect(over.errorField == "k256")

            let big = String(repeating: "x", count: 70_000)
            let large = try await client.send(
                .put, "/v1/users/bo/preferences/app.blob", token: environment.kiosk, json: .string(big))
            #expect(large.status == .unprocessableContent)
            #expect(large.errorCode == "preference_too_large")
            #expect(large.errorField == "app.blob")
        }
        #expect(try await environment.stores.preferences.document(userID: "ana").values.count == 256)
        #expect(try await environment.stores.preferences.document(userID: "bo").version == 0)
    }

    // MARK: - If-Match

    @Test("a write with a stale If-Match is 412 version_mismatch on PUT, PATCH and DELETE")
    func staleIfMatch() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let created = try await client.send(
                .put, "/v1/users/ana/preferences/app.x", token: environment.kiosk, json: 1,
                headers: [.ifMatch: "\"0\""])
            #expect(created.status == .ok)
            let stale: HTTPFields = [.ifMatch: "\"0\""]
            let put = try await client.send(
                .put, "/v1/users/ana/preferences/app.x", token: environment.kiosk, json: 2, headers: stale)
            let patch = try await client.send(
                .patch, "/v1/users/ana/preferences", token: environment.kiosk, json: ["app.x": 3], headers: stale)
            let delete = try await client.send(
                .delete, "/v1/users/ana/preferences/app.x", token: environment.kiosk, headers: stale)
            for response in [put, patch, delete] {
                #expect(response.status == .preconditionFailed)
                #expect(response.errorCode == "version_mismatch")
            }
            let current = try await client.send(
                .put, "/v1/users/ana/preferences/app.x", token: environment.kiosk, json: 4,
                headers: [.ifMatch: try #require(created.headers[.eTag])])
            #expect(current.status == .ok)
            #expect(current.headers[.eTag] == "\"2\"")
        }
        #expect(try await environment.stores.preferences.document(userID: "ana").values == ["app.x": 4])
    }

    @Test("of 20 concurrent PATCHes with the same If-Match, exactly one succeeds and the rest are 412")
    func concurrentPatches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        try await withRouter(environment) { client in
            let first = try await client.send(
                .put, "/v1/users/ana/preferences/app.start", token: environment.kiosk, json: true)
            let etag = try #require(first.headers[.eTag])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<20 {
                    group.addTask {
                        try await client.send(
                            .patch, "/v1/users/ana/preferences", token: environment.kiosk,
                            json: ["app.writer": .int(Int64(writer))], headers: [.ifMatch: etag]
                        ).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { (200..<300).contains($0) }.count == 1)
            #expect(statuses.filter { $0 == 412 }.count == 19)
        }
        #expect(try await environment.stores.preferences.document(userID: "ana").version == 2)
    }

    // MARK: - Who may

    @Test("kiosks and ops read and write users' preferences; kitchen tokens get 403")
    func userRouteRoles() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for (method, uri) in Self.userRoutes {
                let kitchen = try await client.send(method, uri, token: environment.kitchen, json: "en")
                #expect(kitchen.status == .forbidden, "\(method) \(uri)")
                #expect(kitchen.errorCode == "forbidden")
                let anonymous = try await client.send(method, uri, json: "en")
                #expect(anonymous.status == .unauthorized, "\(method) \(uri)")
            }
            for token in [environment.kiosk, environment.boundKiosk, environment.ops] {
                let write = try await client.send(.put, "/v1/users/ana/preferences/locale", token: token, json: "en")
                #expect(write.status == .ok)
                let read = try await client.send(.get, "/v1/users/ana/preferences", token: token)
                #expect(read.status == .ok)
            }
        }
        #expect(try await environment.stores.preferences.document(userID: "ana").version == 3)
    }

    @Test("only ops manage site defaults; kiosk and kitchen tokens get 403")
    func siteRouteRoles() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for (method, uri) in Self.siteRoutes {
                for token in [environment.kiosk, environment.kitchen] {
                    let response = try await client.send(method, uri, token: token, json: "en")
                    #expect(response.status == .forbidden, "\(method) \(uri)")
                }
                let anonymous = try await client.send(method, uri, json: "en")
                #expect(anonymous.status == .unauthorized, "\(method) \(uri)")
            }
        }
        #expect(try await environment.stores.preferences.siteDefaults().isEmpty)
    }

    // MARK: - Site defaults

    @Test("ops set, list, read and delete site defaults, validated like users' values")
    func siteDefaults() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let put = try await client.send(
                .put, "/v1/preferences/defaults/defaultLocation", token: environment.ops, json: "testcafe")
            #expect(put.status == .ok)
            #expect(try put.json == ["key": "defaultLocation", "value": "testcafe", "source": "site"])
            let bad = try await client.send(
                .put, "/v1/preferences/defaults/locale", token: environment.ops, json: "not a tag")
            #expect(bad.status == .unprocessableContent)
            #expect(bad.errorField == "locale")
            let list = try await client.send(.get, "/v1/preferences/defaults", token: environment.ops)
            #expect(try list.json == ["values": ["defaultLocation": "testcafe"]])
            let read = try await client.send(.get, "/v1/preferences/defaults/defaultLocation", token: environment.ops)
            #expect(try read.json["value"] == "testcafe")
            let user = try await client.send(
                .get, "/v1/users/ana/preferences/defaultLocation", token: environment.kiosk)
            #expect(try user.json["source"] == "site")
            let deleted = try await client.send(
                .delete, "/v1/preferences/defaults/defaultLocation", token: environment.ops)
            #expect(deleted.status == .noContent)
            let gone = try await client.send(.get, "/v1/preferences/defaults/defaultLocation", token: environment.ops)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "preference_not_found")
            let again = try await client.send(
                .delete, "/v1/preferences/defaults/defaultLocation", token: environment.ops)
            #expect(again.status == .notFound)
        }
    }
}
