import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Every limit of the API answers a clear 4xx with its own code, and changes nothing.
@Suite("limits: each a clear 4xx with its error code")
struct LimitsTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let method: HTTPRequest.Method
        let path: String
        let body: String?
        var headers: [(String, String)] = []
        let status: Int
        let code: String
        var description: String { name }
    }

    static func order(
        lines: String = #"[{"itemId":"latte","quantity":1,"options":["small"]}]"#,
        name: String = "Ana", extra: String = ""
    ) -> String {
        #"{"cafeId":"testcafe","lines":\#(lines),"customer":{"name":"\#(name)"\#(extra)}}"#
    }

    static let manyLines =
        "["
        + Array(repeating: #"{"itemId":"latte","quantity":1,"options":["small"]}"#, count: 101)
        .joined(separator: ",") + "]"
    /// 40 characters, each an "e" with 30 combining acute accents: few characters, many bytes.
    static let heavy = String(repeating: "e" + String(repeating: "\u{301}", count: 30), count: 40)

    static let cases: [Case] = [
        Case(
            name: "a body over 1 MiB", method: .post, path: "/v1/orders",
            body: #"{"pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#, status: 413, code: "body_too_large"),
        Case(
            name: "JSON nested 65 deep", method: .put, path: "/v1/users/ana/preferences/app.x",
            body: String(repeating: "[", count: 65) + String(repeating: "]", count: 65), status: 400,
            code: "json_too_deep"),
        Case(
            name: "101 order lines", method: .post, path: "/v1/orders", body: order(lines: manyLines), status: 422,
            code: "too_many_lines"),
        Case(
            name: "a quantity of 100", method: .post, path: "/v1/orders",
            body: order(lines: #"[{"itemId":"latte","quantity":100,"options":["small"]}]"#), status: 422,
            code: "out_of_range"),
        Case(
            name: "a quantity of 0", method: .post, path: "/v1/orders",
            body: order(lines: #"[{"itemId":"latte","quantity":0,"options":["small"]}]"#), status: 422,
            code: "out_of_range"),
        Case(
            name: "a customer name of 81 characters", method: .post, path: "/v1/orders",
            body: order(name: String(repeating: "n", count: 81)), status: 422, code: "text_too_long"),
        Case(
            name: "a customer name of 40 characters and 2.5 KB", method: .post, path: "/v1/orders",
            body: order(name: heavy), status: 422, code: "text_too_long"),
        Case(
            name: "a NUL in a customer name", method: .post, path: "/v1/orders", body: order(name: #"Ana\u0000"#),
            status: 422, code: "control_character"),
        Case(
            name: "an escape sequence in a customer name", method: .post, path: "/v1/orders",
            body: order(name: #"\u001b[2J"#),
            status: 422, code: "control_character"),
        Case(
            name: "a note of 201 characters", method: .post, path: "/v1/orders",
            body: order(
                lines: #"[{"itemId":"latte","quantity":1,"options":["small"],"note":""#
                    + String(repeating: "x", count: 201) + #""}]"#),
            status: 422, code: "text_too_long"),
        Case(
            name: "a user id that is not one", method: .post, path: "/v1/orders",
            body: order(extra: #","userId":"a b""#), status: 422, code: "invalid_field"),
        Case(
            name: "a preference key of 129 characters", method: .put,
            path: "/v1/users/ana/preferences/" + String(repeating: "k", count: 129), body: "1", status: 422,
            code: "preference_key_too_long"),
        Case(
            name: "a preference key of 40 characters and 2.5 KB", method: .put,
            path: "/v1/users/ana/preferences/" + heavy.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            body: "1",
            status: 422, code: "preference_key_too_long"),
        Case(
            name: "a NUL in a preference key", method: .put, path: "/v1/users/ana/preferences/a%00b", body: "1",
            status: 422,
            code: "invalid_preference_key"),
        Case(
            name: "wait=31", method: .get, path: "/v1/cafes/testcafe/tickets?wait=31", body: nil, status: 422,
            code: "invalid_query"),
        Case(
            name: "wait=-1", method: .get, path: "/v1/cafes/testcafe/tickets?wait=-1", body: nil, status: 422,
            code: "invalid_query"),
        Case(
            name: "an Idempotency-Key of 256 characters", method: .post, path: "/v1/orders", body: order(),
            headers: [("Idempotency-Key", String(repeating: "k", count: 256))], status: 400,
            code: "idempotency_key_invalid"),
        Case(
            name: "a beacon label with a line break", method: .put,
            path: "/v1/beacons/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/900/7",
            body: #"{"cafeId":"testcafe","measuredPower":-60,"label":"door\nway"}"#, status: 422,
            code: "control_character"),
        Case(
            name: "a token name of 201 characters", method: .post, path: "/v1/tokens",
            body: #"{"role":"kiosk","name":""# + String(repeating: "t", count: 201) + #""}"#, status: 422,
            code: "text_too_long"),
        Case(
            name: "a café name with a NUL", method: .put, path: "/v1/cafes/testcafe",
            body: String(
                decoding: JSONValue.object(
                    Fixtures.cafeConfiguration().merging(
                        ["names": ["en": "Test\u{0}Café", "es": "Café"]]) { $1 }
                ).encoded(), as: UTF8.self),
            status: 422, code: "control_character"),
    ]

    @Test("the limit is refused with its status and code, and nothing is stored", arguments: cases)
    func limit(_ limit: Case) async throws {
        let environment = try await TestEnvironment.make()
        let ordersBefore = try await environment.rowCount("customerOrder")
        let response = try await withRouter(environment) { client in
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(limit.path.contains("tickets") ? environment.kitchen : environment.ops)"
            headers[.contentType] = "application/json"
            headers[HTTPField.Name("Idempotency-Key")!] = "limits-1"
            for (name, value) in limit.headers { headers[HTTPField.Name(name)!] = value }
            return try await client.execute(
                uri: limit.path, method: limit.method, headers: headers,
                body: limit.body.map { ByteBuffer(string: $0) })
        }
        #expect(
            Int(response.status.code) == limit.status, "\(limit.name): \(String(buffer: response.body).prefix(300))")
        #expect(response.errorCode == limit.code, "\(limit.name): \(String(buffer: response.body).prefix(300))")
        #expect(try await environment.rowCount("customerOrder") == ordersBefore)
        #expect(try await environment.rowCount("userPreferences") == 0)
    }

    @Test("an error never echoes a huge key whole: the field is cut to 512 bytes")
    func hugeKeyIsNotEchoed() async throws {
        let environment = try await TestEnvironment.make()
        let key = String(repeating: "é", count: 3000)
        let response = try await withRouter(environment) { client in
            try await client.send(
                .put, "/v1/users/ana/preferences/" + key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                token: environment.ops, rawBody: "1")
        }
        #expect(response.status == .unprocessableContent)
        #expect((response.errorField?.utf8.count ?? 0) <= 512 + 3)
        #expect(response.body.readableBytes < 2048)
    }
}
