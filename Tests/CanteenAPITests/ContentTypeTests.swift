import CanteenAPI
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Request bodies are read as JSON only when their `Content-Type` says JSON, parsed as a media type.
@Suite("Content-Type of request bodies")
struct ContentTypeTests {
    /// Moves a ticket that does not exist: a body that is read gets 404, one that is refused 415.
    func move(_ client: any TestClientProtocol, token: String, contentType: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let contentType { headers[.contentType] = contentType }
        return try await client.execute(
            uri: "/v1/tickets/tkt_missing/status", method: .post, headers: headers,
            body: ByteBuffer(string: #"{"status": "preparing"}"#))
    }

    @Test(
        "application/json, with parameters or in any case, and +json types are read",
        arguments: [
            "application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json",
            "application/vnd.canteen.ticket+json;charset=UTF-8", " application/json\t", "APPLICATION/VND.X+JSON ; q=1",
            "application/json;",
        ])
    func json(contentType: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await move(client, token: environment.kitchen, contentType: contentType)
            #expect(response.status == .notFound)
            #expect(response.errorCode == "ticket_not_found")
        }
    }

    @Test(
        "other media types, look-alikes and a body with no Content-Type are 415 and change nothing",
        arguments: [
            "text/notjson", "image/json-not", "application/jsonx", "text/json", "application/+json", "json",
            "text/plain",
            "application /json", "application/ json", "application/json/x", "application/jsön", "", ";application/json",
            "application/js(on)", "appli,cation/json", "application/json@x", "application/js{on}", "application/js\\on",
            nil,
        ] as [String?])
    func notJSON(contentType: String?) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await move(client, token: environment.kitchen, contentType: contentType)
            #expect(response.status == .unsupportedMediaType, "\(contentType ?? "none")")
            #expect(response.errorCode == "unsupported_media_type")
        }
    }
}
