import AsyncHTTPClient
import CanteenCore
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP calls the simulation makes, with one token (ops: it may place orders, read the
/// feed and move tickets).
struct SimulationAPI: Sendable {
    let base: String
    let token: String

    /// An answer: its status and its JSON body (nil when empty or not JSON).
    struct Answer: Sendable {
        let status: Int
        let json: JSONValue?

        var errorCode: String? { json?.objectValue?["error"]?.objectValue?["code"]?.stringValue }
    }

    func send(
        _ method: HTTPMethod, _ path: String, json: JSONValue? = nil, headers: [(String, String)] = [],
        timeout: TimeAmount = .seconds(60)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if !token.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json.encoded()))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 32 << 20)
        let bytes = Data(body.readableBytesView)
        return Answer(status: Int(response.status.code), json: bytes.isEmpty ? nil : try? JSONValue.parse(bytes))
    }

    /// Fails with the answer's error unless its status is one of `expected`.
    func expect(_ answer: Answer, _ expected: Set<Int>, _ what: String) throws -> JSONValue {
        guard expected.contains(answer.status), let json = answer.json else {
            throw SimulationError("\(what) answered \(answer.status) \(answer.errorCode ?? "")")
        }
        return json
    }
}

/// A simulation that could not go on (the server refused its café, a call failed).
public struct SimulationError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? { objectValue?[key] }

    var intValue: Int? {
        switch self {
        case .int(let value): Int(value)
        case .double(let value): Int(value)
        default: nil
        }
    }

    var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// An RFC 3339 instant.
    var dateValue: Date? { stringValue.flatMap(RFC3339.parse) }
}

/// Whether a server answers.
public enum SimulationProbe {
    /// Whether `GET /healthz` at `url` answers 200.
    public static func healthy(_ url: String) async throws -> Bool {
        try await SimulationAPI(base: url, token: "").send(.GET, "/healthz", timeout: .seconds(2)).status == 200
    }
}
