import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Every answer of the API, errors too, tells browsers not to guess its type
/// (`X-Content-Type-Options: nosniff`): a JSON error echoing `<script>` is never run as HTML.
@Suite("X-Content-Type-Options: nosniff on every API answer")
struct NoSniffTests {
    @Test("successes, errors of every kind, pages of the kitchen feed and metrics carry nosniff")
    func everyAnswer() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let answers: [(String, TestResponse)] = [
                ("200", try await client.send(.get, "/v1/cafes/testcafe", token: environment.kiosk)),
                ("201", try await client.send(.post, "/v1/tokens", token: environment.ops, json: ["role": "kiosk"])),
                ("feed", try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)),
                ("metrics", try await client.send(.get, "/metrics", token: environment.ops)),
                ("204", try await client.send(.delete, "/v1/preferences/defaults/nothing", token: environment.ops)),
                (
                    "400",
                    try await client.send(
                        .post, "/v1/tokens", token: environment.ops, rawBody: "{<script>",
                        headers: json)
                ),
                ("401", try await client.send(.get, "/v1/cafes")),
                ("403", try await client.send(.get, "/v1/tokens", token: environment.kiosk)),
                ("404", try await client.send(.get, "/v1/<script>alert(1)</script>", token: environment.kiosk)),
                ("405", try await client.send(.delete, "/v1/cafes", token: environment.ops)),
                (
                    "415",
                    try await client.send(
                        .post, "/v1/tokens", token: environment.ops, rawBody: "x",
                        headers: [.contentType: "text/html"])
                ),
                (
                    "422",
                    try await client.send(
                        .put, "/v1/cafes/testcafe", token: environment.ops,
                        json: ["timeZone": "<img src=x>"])
                ),
            ]
            for (name, answer) in answers {
                #expect(
                    answer.headers[.xContentTypeOptions] == "nosniff", "\(name): \(answer.status) \(answer.headers)")
                #expect(answer.headers[values: .xContentTypeOptions].count == 1, "\(name): once")
            }
        }
    }
}
