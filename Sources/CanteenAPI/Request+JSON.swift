import CanteenCore
import CanteenFormat
import CanteenJSON
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
        guard let header = headers.value(of: .contentType) else {
            throw CanteenError(
                .malformed, code: .unsupportedMediaType,
                message: "the body has no Content-Type; send it as application/json")
        }
        guard Self.isJSON(header) else {
            throw CanteenError(
                .malformed, code: .unsupportedMediaType,
                message: "the body must be application/json, not \(header.prefix(100))")
        }
    }

    /// Whether a `Content-Type` names JSON, parsed as a media type (RFC 9110 §8.3: `type/subtype`
    /// of token characters, then `;` parameters), never searched for "json". Every order's body
    /// passes here, so it reads the header's bytes once, without building strings.
    static func isJSON(_ contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            // The essence: up to the first `;`, without HTTP whitespace around it.
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            var start = bytes.startIndex
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            guard let slash = bytes[start..<end].firstIndex(of: UInt8(ascii: "/")) else { return false }
            let type = bytes[start..<slash]
            let subtype = bytes[(slash + 1)..<end]
            guard !type.isEmpty, !subtype.isEmpty, type.allSatisfy(isTokenByte), subtype.allSatisfy(isTokenByte),
                equalsIgnoringCase(type, "application")
            else { return false }
            if equalsIgnoringCase(subtype, "json") { return true }
            let suffix = "+json".utf8.count
            return subtype.count > suffix && equalsIgnoringCase(subtype.suffix(suffix), "+json")
        }
    }

    /// A token character of RFC 9110: visible ASCII except the separators (`/` included).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="),
            UInt8(ascii: "{"), UInt8(ascii: "}"):
            return false
        default:
            return true
        }
    }

    /// ASCII case-insensitive comparison with a lowercase literal.
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString)
        -> Bool
    {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard bytes.count == expected.count else { return false }
        return zip(bytes, expected).allSatisfy { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }
}

/// Builds JSON responses.
enum JSONResponse {
    /// The content type of every JSON answer.
    static let contentType = "application/json; charset=utf-8"

    /// A JSON answer's own fields: its type, and `nosniff` (no browser guesses another type for a
    /// JSON error echoing `<script>`; `APIMiddleware` adds it to answers without it).
    static let fields: HTTPFields = [.contentType: contentType, .xContentTypeOptions: "nosniff"]

    /// `fields` with the route's own: most answers have none, and share `fields` as they are.
    static func fields(_ extra: HTTPFields) -> HTTPFields {
        guard !extra.isEmpty else { return fields }
        var headers = extra
        headers[.contentType] = contentType
        headers[.xContentTypeOptions] = "nosniff"
        return headers
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func make(
        _ value: some Encodable, status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:]
    ) throws -> Response {
        make(encoded: try encoder.encode(value), status: status, headers: extra)
    }

    /// A response with a body that writes itself (`JSONWriter`), for the hot paths.
    static func make(
        writing value: some JSONWritable, status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:]
    ) -> Response {
        Response(
            status: status, headers: fields(extra),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.encode(value))))
    }

    /// A response with an already encoded JSON body.
    static func make(encoded data: Data, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response
    {
        Response(status: status, headers: fields(extra), body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
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
