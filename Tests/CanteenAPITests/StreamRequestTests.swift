import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CanteenAPI

@Suite("What the middleware does before a route")
struct StreamRequestTests {
    @Test(
        "exactly the routes documented as event streams are answered in a child task, not the connection's")
    func streamsAnsweredApart() async throws {
        let environment = try await TestEnvironment.make()
        let document = OpenAPIDocument.repository
        var streams: [String] = []
        for entry in CanteenRouter.build(environment.services).entries {
            let path = entry.path.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
            let key = "\(entry.method) \(path)"
            let operation = try #require(document.operations[key], "\(key) is in openapi.yaml")
            let isStream = operation.response(for: 200)?.content.keys.contains("text/event-stream") ?? false
            // Hummingbird names the route in either form; the rule must hold for both.
            #expect(APIMiddleware.opensStream(route: entry.path) == isStream, "\(key)")
            #expect(APIMiddleware.opensStream(route: path) == isStream, "\(key)")
            if isStream { streams.append(key) }
        }
        #expect(
            streams.sorted() == ["GET /v1/cafes/{cafeId}/tickets/events", "GET /v1/orders/{orderId}/events"])
        #expect(!APIMiddleware.opensStream(route: nil))
    }

    @Test("a new request id's 64 characters are the URL-safe ones, each once; ids differ")
    func requestIDCharacters() {
        let characters = (0..<64).map { RequestLog.character(UInt8($0)) }
        let expected = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_".utf8)
        #expect(characters == expected)
        let ids = (0..<1000).map { _ in RequestLog.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && $0.utf8.allSatisfy(expected.contains) })
    }

    @Test("a credential sent to an open path is not checked there, and is checked everywhere else")
    func credentialsOnOpenPaths() async throws {
        try await withRouter(try await TestEnvironment.make()) { client in
            for path in ["/healthz", "/readyz"] {
                let response = try await client.send(.get, path, token: "cnt_not-a-real-token")
                #expect(response.status == .ok, "\(path)")
            }
            let closed = try await client.send(.get, "/v1/cafes", token: "cnt_not-a-real-token")
            #expect(closed.status == .unauthorized)
        }
    }
}
