import AsyncHTTPClient
import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOHTTP1
import Testing

@testable import CanteenAPI

/// Who may open a café's ticket event stream, and how a page's `EventSource` (which cannot send
/// headers) presents its token: a cookie read on that route only.
@Suite("Who reads the ticket event stream")
struct TicketEventAccessTests {
    static let path = TicketEventStreamTests.path

    @Test(
        "refused streams are JSON errors naming what was wrong: no token, another café's token, a user token, a bad cursor or query"
    )
    func refusals() async throws {
        let environment = try await TestEnvironment.make()
        let elsewhere = try await environment.stores.tokens.createToken(role: .kitchen, cafeID: "othercafe", name: nil)
            .secret
        let user = try await environment.stores.tokens.createToken(TokenSpec(role: .user, userID: "u-ada")).secret
        try await withRouter(environment) { client in
            let anonymous = try await client.send(.get, Self.path)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.errorCode == "unauthenticated")
            #expect(try await client.send(.get, Self.path, token: "cnt_not-a-token-at-all").status == .unauthorized)
            let otherCafe = try await client.send(.get, Self.path, token: elsewhere)
            #expect(otherCafe.status == .forbidden)
            #expect(try await client.send(.get, Self.path, token: user).status == .forbidden)
            let unknown = try await client.send(.get, "/v1/cafes/nowhere/tickets/events", token: environment.ops)
            #expect(unknown.status == .notFound)

            let cursor = try await client.send(
                .get, Self.path, token: environment.kitchen,
                headers: [OrderEventHeaders.lastEventID: "yesterday"])
            #expect(cursor.status == .badRequest)
            #expect(cursor.errorCode == "invalid_cursor")
            #expect(cursor.errorField == "Last-Event-ID")
            let after = try await client.send(.get, Self.path + "?after=-3", token: environment.kitchen)
            #expect(after.errorField == "after")
            let station = try await client.send(.get, Self.path + "?station=no%20such", token: environment.kitchen)
            #expect(station.errorField == "station")
            let language = try await client.send(.get, Self.path + "?lang=%3Cscript%3E", token: environment.kitchen)
            #expect(language.errorCode == "invalid_query")
            #expect(language.errorField == "lang")
        }
    }

    @Test("a page's token cookie opens the stream; from another origin it is refused, and no other route accepts it")
    func cookie() async throws {
        let environment = try await TestEnvironment.make()
        let services = environment.stores.apiServices(
            strings: TestEnvironment.strings, heartbeat: .milliseconds(300),
            clock: environment.clock.closure)
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let cookie = ("Cookie", "theme=dark; \(StreamCredential.cookieName)=\(environment.kitchen)")
            var stream = try await TicketStream.open(
                port: port, Self.path + "?lang=fr",
                headers: [cookie, ("Sec-Fetch-Site", "same-origin")])
            #expect(stream.response.status == .ok)
            #expect(
                stream.response.headers.first(name: "Content-Language")?.hasPrefix("fr") == true,
                "?lang= as Accept-Language")
            #expect(try await stream.nextEvent()?.name == "snapshot")
            try await stream.close()

            for crossing in [[("Origin", "http://elsewhere.example")], [("Sec-Fetch-Site", "same-site")]] {
                let refused = try await TicketStream.open(port: port, Self.path, headers: [cookie] + crossing)
                #expect(refused.response.status == .forbidden, "\(crossing)")
                try await refused.close()
            }
            let sameOrigin = try await TicketStream.open(
                port: port, Self.path,
                headers: [cookie, ("Origin", "http://127.0.0.1:\(port)")])
            #expect(sameOrigin.response.status == .ok)
            try await sameOrigin.close()

            var headers = HTTPFields()
            headers[.cookie] = cookie.1
            #expect(try await client.send(.get, "/v1/cafes/testcafe/tickets", headers: headers).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/token", headers: headers).status == .unauthorized)
            let wrong = ("Cookie", "\(StreamCredential.cookieName)=cnt_revoked-or-never-was")
            let unknown = try await TicketStream.open(port: port, Self.path, headers: [wrong])
            #expect(unknown.response.status == .unauthorized)
            try await unknown.close()
        }
    }
}
