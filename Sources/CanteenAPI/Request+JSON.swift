import CanteenCore
import CanteenFormat
import Foundation
import Hummingbird
import NIOCore

extension Request {
    /// The body as a JSON value: 413 above 1 MiB, 400 `malformed_json` naming where it broke,
    /// 415 when it is not declared as JSON (`application/json` or a `+json` type).
    mutating func jsonBody() async throws -> JSONValue {
        guard let body = try await optionalJSONBody() else {
            throw CanteenError(.malformed, code: .malformedJson, message: "the request body is empty; expected JSON")
        }
        return body
    }

    /// The body as a JSON value, or nil when the request has no body; otherwise as `jsonBody()`.
    mutating func optionalJSONBody() async throws -> JSONValue? {
        let buffer = try await collectBody(upTo: APILimits.maxBodyBytes)
        guard buffer.readableBytes > 0 else { return nil }
        try checkJSONContentType()
        return try buffer.withUnsafeReadableBytes { bytes in try JSONValue.parse(bytes) }
    }

    /// 415 unless the body is declared as JSON: `application/json` or a structured `+json`
    /// type (`application/merge-patch+json`), with parameters such as `charset` allowed.
    private func checkJSONContentType() throws(CanteenError) {
        guard let header = headers[.contentType] else {
            throw CanteenError(.malformed, code: .unsupportedMediaType,
                               message: "the body has no Content-Type; send it as application/json")
        }
        guard Self.isJSON(header) else {
            throw CanteenError(.malformed, code: .unsupportedMediaType,
                               message: "the body must be application/json, not \(header.prefix(100))")
        }
    }

    /// Whether a `Content-Type` names JSON, parsed as a media type (RFC 9110 §8.3: `type/subtype`
    /// of token characters, then `;` parameters), never searched for "json".
    static func isJSON(_ contentType: String) -> Bool {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.trimmingHTTPWhitespace().lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isTokenCharacter) }),
              parts[0] == "application" else { return false }
        let subType = parts[1]
        return subType == "json" || (subType.hasSuffix("+json") && subType.count > "+json".count)
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 0x20, ascii < 0x7F else { return false }
        return !"()<>@,;:\\\"/[]?={}".contains(character)
    }
}

/// Builds JSON responses.
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok,
                     headers extra: HTTPFields = [:]) throws -> Response {
        make(encoded: try encoder.encode(value), status: status, headers: extra)
    }

    /// A response with a body that writes itself (`JSONWriter`), for the hot paths.
    static func make(writing value: some JSONWritable, status: HTTPResponse.Status = .ok,
                     headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.encode(value))))
    }

    /// A response with an already encoded JSON body.
    static func make(encoded data: Data, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Parameters {
    /// A path parameter that the route pattern guarantees.
    func path(_ name: String) throws(CanteenError) -> String {
        guard let value = get(name) else {
            throw CanteenError(.invalid, code: .invalidField, message: "missing path parameter \(name)")
        }
        return value
    }
}
