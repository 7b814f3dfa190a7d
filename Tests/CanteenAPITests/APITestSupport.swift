import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Runs `body` against the in-process router of `environment`.
@discardableResult
func withRouter<Value: Sendable>(
    _ environment: TestEnvironment,
    _ body: @Sendable (any TestClientProtocol) async throws -> Value
) async throws -> Value {
    let app = Application(router: CanteenRouter.build(environment.services).router)
    return try await app.test(.router) { client in try await body(client) }
}

extension TestClientProtocol {
    /// A request with an optional bearer token and JSON body.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: JSONValue? = nil,
        rawBody: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: json.encoded())
        } else if let rawBody {
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
            body = ByteBuffer(string: rawBody)
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }
}

extension TestResponse {
    /// The body parsed as JSON (fails the test when it is not).
    var json: JSONValue {
        get throws { try JSONValue.parse(Data(body.readableBytesView)) }
    }

    /// `error.code`, `error.field` of an error body.
    var errorCode: String? { (try? json)?.objectValue?["error"]?.objectValue?["code"]?.stringValue }
    var errorField: String? { (try? json)?.objectValue?["error"]?.objectValue?["field"]?.stringValue }
}

extension JSONValue {
    /// Follows object keys and array indexes: `value["categories", 0, "items"]`.
    subscript(_ path: any JSONPathComponent...) -> JSONValue? {
        var current: JSONValue? = self
        for component in path {
            switch (current, component) {
            case (.object(let object)?, let key as String): current = object[key]
            case (.array(let array)?, let index as Int): current = array.indices.contains(index) ? array[index] : nil
            default: return nil
            }
        }
        return current
    }
}

protocol JSONPathComponent {}
extension String: JSONPathComponent {}
extension Int: JSONPathComponent {}
