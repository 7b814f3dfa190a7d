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

/// Enrolment codes and card identifiers are secrets a kiosk can guess at: after 10 failed guesses
/// in a minute, by one token or by the tokens of one café, the next guess is 429 `too_many_attempts`
/// with `Retry-After`, and nothing is checked until the minute has passed.
@Suite("Guessing enrolment codes and cards: 10 failures a minute per token and per café")
struct GuessingLimitsTests {
    static let wrongCode: JSONValue = ["code": "AAAA-BBBB-CCCC", "technology": "type2", "identifier": "04A25C1A2B3C80"]
    static let unknownCard: JSONValue = ["technology": "type2", "identifier": "04A25C1A2B3C80"]

    /// Sends `count` failing guesses and expects each to be an ordinary refusal (not 429).
    static func fail(
        _ count: Int, _ client: any TestClientProtocol, _ uri: String, token: String,
        body: JSONValue, expecting code: String
    ) async throws {
        for attempt in 1...count {
            let answer = try await client.send(.post, uri, token: token, json: body)
            #expect(answer.errorCode == code, "attempt \(attempt): \(answer.status) \(String(buffer: answer.body))")
        }
    }

    /// `Retry-After` of a 429 as whole seconds.
    static func retryAfter(_ answer: TestResponse) throws -> Int {
        try #require(
            answer.headers[.retryAfter].flatMap { Int($0) }, "Retry-After: \(answer.headers[.retryAfter] ?? "none")")
    }

    @Test("the 11th wrong enrolment code in a minute is 429 too_many_attempts with Retry-After")
    func enrolmentLimit() async throws {
        // Given a kiosk of the test café that guessed 10 wrong codes
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            // When it guesses again
            let limited = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode)
            // Then it is told to wait, in seconds, within the minute
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "too_many_attempts")
            #expect((1...60).contains(try Self.retryAfter(limited)))
            #expect(limited.headers[.contentType] == "application/json; charset=utf-8")
        }
    }

    @Test("a limited kiosk cannot try even the right code: it is refused unchecked and stays usable after the wait")
    func limitedRightCode() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let made = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops, json: ["userId": "u-ana"])
            let code = try #require(try made.json["code"]?.stringValue)
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            var right = Self.wrongCode.objectValue ?? [:]
            right["code"] = .string(code)
            let refused = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: .object(right))
            #expect(refused.status == .tooManyRequests)
            environment.clock.advance(by: Double(try Self.retryAfter(refused)))
            let enrolled = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: .object(right))
            #expect(enrolled.status == .created, "\(String(buffer: enrolled.body))")
        }
    }

    @Test("30 wrong codes sent at once: at most 10 are checked, the others are 429")
    func parallelGuesses() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await client.send(
                            .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode
                        )
                        .errorCode
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(codes.filter { $0 == "enrolment_code_invalid" }.count <= 10, "\(codes)")
            #expect(codes.filter { $0 == "too_many_attempts" }.count >= 20, "\(codes)")
        }
    }

    @Test("a successful enrolment does not count as a failure")
    func successDoesNotCount() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given 9 failures and then one code that works
            try await Self.fail(
                9, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let made = try await client.send(
                .post, "/v1/cards/enrolments", token: environment.ops, json: ["userId": "u-ana"])
            var right = Self.wrongCode.objectValue ?? [:]
            right["code"] = try #require(try made.json["code"])
            let enrolled = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: .object(right))
            #expect(enrolled.status == .created)
            // Then the 10th failure is still an ordinary refusal, and the 11th is limited
            try await Self.fail(
                1, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let limited = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode)
            #expect(limited.status == .tooManyRequests)
        }
    }

    @Test("another kiosk token of the same café is limited by the café's count; another café's is not")
    func perCafe() async throws {
        let environment = try await TestEnvironment.make()
        let second = try await environment.stores.tokens.createToken(role: .kiosk, cafeID: "testcafe", name: "second")
            .secret
        let elsewhere = try await environment.stores.tokens.createToken(role: .kiosk, cafeID: "othercafe", name: "o")
            .secret
        try await withRouter(environment) { client in
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let sameCafe = try await client.send(.post, "/v1/cards/enrol", token: second, json: Self.wrongCode)
            #expect(sameCafe.status == .tooManyRequests)
            #expect(sameCafe.errorCode == "too_many_attempts")
            try await Self.fail(
                1, client, "/v1/cards/enrol", token: elsewhere, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
        }
    }

    @Test("the limit lifts when the oldest failure is a minute old, and not a second sooner")
    func windowPasses() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let limited = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode)
            let wait = try Self.retryAfter(limited)
            #expect(wait == 60)
            environment.clock.advance(by: Double(wait) - 1)
            let early = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode)
            #expect(early.status == .tooManyRequests)
            #expect(try Self.retryAfter(early) == 1)
            environment.clock.advance(by: 1)
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let again = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode)
            #expect(again.status == .tooManyRequests)
        }
    }

    @Test("an unbound kiosk token is limited by its own count")
    func perToken() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.fail(
                10, client, "/v1/cards/identify", token: environment.kiosk, body: Self.unknownCard,
                expecting: "card_not_registered")
            let limited = try await client.send(
                .post, "/v1/cards/identify", token: environment.kiosk, json: Self.unknownCard)
            #expect(limited.status == .tooManyRequests)
            // The café-bound kiosk has a count of its own
            try await Self.fail(
                1, client, "/v1/cards/identify", token: environment.boundKiosk, body: Self.unknownCard,
                expecting: "card_not_registered")
        }
    }

    @Test("identifying unknown cards is limited the same way, through /v1/cards/identify and /v1/taps alike")
    func identifyLimit() async throws {
        let environment = try await TestEnvironment.make()
        _ = try await environment.stores.cards.register(
            CardRegistration(userID: "u-ana", displayName: "Ana", technology: .type2),
            identifier: try CardIdentifier("04000000000001"))
        try await withRouter(environment) { client in
            // A registered card is no failure
            for _ in 0..<12 {
                let known = try await client.send(
                    .post, "/v1/cards/identify", token: environment.boundKiosk,
                    json: ["technology": "type2", "identifier": "04000000000001"])
                #expect(known.status == .ok)
            }
            try await Self.fail(
                5, client, "/v1/cards/identify", token: environment.boundKiosk, body: Self.unknownCard,
                expecting: "card_not_registered")
            // An unknown card tapped at the kiosk is a failed identification too
            for _ in 0..<5 {
                let tap = try await client.send(
                    .post, "/v1/taps", token: environment.boundKiosk, json: Self.unknownCard)
                #expect(tap.status == .created)
                #expect(try tap.json["error", "code"] == "card_not_registered")
            }
            let limited = try await client.send(
                .post, "/v1/cards/identify", token: environment.boundKiosk,
                json: Self.unknownCard)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "too_many_attempts")
            let tap = try await client.send(.post, "/v1/taps", token: environment.boundKiosk, json: Self.unknownCard)
            #expect(tap.status == .tooManyRequests)
            #expect(tap.headers[.retryAfter] != nil)
            // Enrolment has a count of its own
            try await Self.fail(
                1, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
        }
    }

    @Test("a too_many_attempts message comes in the reader's language")
    func translated() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.fail(
                10, client, "/v1/cards/enrol", token: environment.boundKiosk, body: Self.wrongCode,
                expecting: "enrolment_code_invalid")
            let limited = try await client.send(
                .post, "/v1/cards/enrol", token: environment.boundKiosk, json: Self.wrongCode,
                headers: [.acceptLanguage: "fr"])
            #expect(limited.headers[.contentLanguage] == "fr")
            let message = try #require(try limited.json["error", "message"]?.stringValue)
            #expect(message.contains("60"), "\(message)")
            #expect(!message.contains("too many"), "\(message)")
        }
    }
}
