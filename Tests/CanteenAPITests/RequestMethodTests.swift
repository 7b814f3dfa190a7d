import CanteenAPI
import CanteenCore
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Methods as RFC 9110 has them: HEAD wherever GET is served, and a 405's `Allow` naming exactly
/// what the path is served with. Both are checked over every route of the router's table.
@Suite("HEAD on every GET route, and Allow from the router's table")
struct RequestMethodTests {
    /// Every route of the table as a concrete path: each `:parameter` filled with a sample.
    static func tablePaths(_ routes: RouteTable) -> [(method: String, pattern: String, path: String)] {
        routes.entries.map { entry in
            let path = entry.path.split(separator: "/", omittingEmptySubsequences: false).map { part in
                guard part.hasPrefix(":") else { return String(part) }
                return ContractTests.sampleURI("{\(part.dropFirst())}")
            }.joined(separator: "/")
            return (entry.method, entry.path, path)
        }
    }

    /// The answer's fields that must be the same for GET and HEAD (not the request's own id).
    static func comparableFields(_ response: TestResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for field in response.headers where field.name != RequestLog.header {
            fields[field.name.canonicalName, default: ""] += field.value + ";"
        }
        return fields
    }

    @Test("HEAD on every GET route of the table answers GET's status and headers, Content-Length included, and no body")
    func headOnEveryGetRoute() async throws {
        let environment = try await TestEnvironment.make()
        let routes = CanteenRouter.build(environment.services)
        let gets = Self.tablePaths(routes).filter { $0.method == "GET" }
        #expect(gets.count >= 20)
        let answeredOK = try await withRouter(environment) { client in
            var answeredOK = 0
            for route in gets {
                for token in [environment.ops, nil] {
                    // An event stream's GET never ends: its HEAD is the stream's head alone, and ends.
                    if route.pattern.hasSuffix("/tickets/events") {
                        let head = try await client.send(.head, route.path, token: token)
                        #expect(
                            head.status == (token == nil ? .unauthorized : .ok), "HEAD \(route.path): \(head.status)")
                        #expect(head.body.readableBytes == 0)
                        if token != nil { #expect(head.headers[.contentType] == "text/event-stream; charset=utf-8") }
                        continue
                    }
                    let get = try await client.send(.get, route.path, token: token)
                    let head = try await client.send(.head, route.path, token: token)
                    let label = "\(route.pattern) as \(token == nil ? "nobody" : "ops")"
                    #expect(head.status == get.status, "\(label): HEAD \(head.status), GET \(get.status)")
                    #expect(head.body.readableBytes == 0, "\(label): HEAD has a body")
                    // The metrics count the requests just made: only their status and kind compare.
                    if route.pattern == "/metrics" {
                        #expect(head.headers[.contentType] == get.headers[.contentType])
                        continue
                    }
                    #expect(Self.comparableFields(head) == Self.comparableFields(get), "\(label)")
                    if get.status != .notModified && get.status != .noContent {
                        #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(label)")
                    }
                    if get.status == .ok { answeredOK += 1 }
                }
            }
            return answeredOK
        }
        // Not only errors were compared: most routes answered their samples.
        #expect(answeredOK >= gets.count / 2)
    }

    @Test("over a socket, HEAD sends GET's head with its Content-Length and no body: the next answer follows at once")
    func headOverSocket() async throws {
        try await ConnectionLimitsTests().withServer(headerTimeout: .seconds(10)) { port, token in
            try await blocking {
                let connection = try RawHTTP(port: port, timeout: 20)
                let auth = [("Authorization", "Bearer \(token)")]
                let paths = [
                    "/healthz", "/v1/cafes/tokyo/menu", "/v1/cafes/tokyo", "/kds?cafe=tokyo", "/assets/kds.js",
                ]
                for path in paths {
                    let get = try connection.exchange("GET", path, headers: auth)
                    connection.send(RawHTTP.request("HEAD", path, headers: auth))
                    let head = try connection.readResponse(bodiless: true)
                    #expect(get.status == 200, "\(path)")
                    #expect(head.status == get.status, "\(path): \(head.statusLine)")
                    #expect(head.headers["content-length"] == String(get.body.count), "\(path)")
                    #expect(head.headers["content-type"] == get.headers["content-type"], "\(path)")
                    #expect(head.headers["etag"] == get.headers["etag"], "\(path)")
                    // Had the HEAD's answer carried a body, this answer would not parse.
                    #expect(try connection.exchange("GET", "/healthz").status == 200, "after HEAD \(path)")
                }
            }
        }
    }

    @Test("every 405 lists in Allow exactly the methods its path is served with (every route of the table)")
    func allowFromTheTable() async throws {
        let environment = try await TestEnvironment.make()
        let paths = Self.tablePaths(CanteenRouter.build(environment.services))
        let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]
        try await withRouter(environment) { client in
            for route in paths {
                // No token: a served method answers 401 (or the public page), never changes anything.
                var served: [String] = []
                var refusals: [(String, TestResponse)] = []
                for method in methods {
                    let response = try await client.send(method, route.path)
                    #expect(
                        response.status != .notFound || response.errorCode != "route_not_found",
                        "\(method) \(route.path) is an unknown route")
                    if response.status == .methodNotAllowed {
                        refusals.append((method.rawValue, response))
                    } else {
                        served.append(method.rawValue)
                    }
                }
                #expect(served.contains(route.method), "\(route.method) \(route.path) is not served")
                for (method, refusal) in refusals {
                    #expect(refusal.errorCode == "method_not_allowed")
                    let allow = refusal.headers[.allow]?.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                    #expect(allow?.sorted() == served.sorted(), "\(method) \(route.path): Allow \(allow ?? [])")
                }
            }
            let check = try await client.send(.get, "/v1/coupons/check")
            #expect(check.status == .methodNotAllowed)
            #expect(check.headers[.allow] == "POST")
        }
    }
}
