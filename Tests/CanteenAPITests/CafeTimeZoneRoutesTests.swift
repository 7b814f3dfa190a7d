import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `PUT /v1/cafes/{id}` takes every tzdata zone name (`Asia/Kolkata`, which ICU's list omits),
/// stores it as given, and refuses abbreviations and offsets naming `timeZone`.
@Suite("A café's time zone over HTTP")
struct CafeTimeZoneRoutesTests {
    /// The test café's configuration in `zone`, open all day every day.
    static func configuration(id: String, zone: String) -> JSONValue {
        var config = Fixtures.cafeConfiguration(Fixtures.cafeDocument(id: id, major: id == "testcafe" ? 900 : 960))
        config["timeZone"] = .string(zone)
        let day: JSONValue = [["open": "00:00", "close": "24:00"]]
        config["hours"] = .object(
            Dictionary(
                uniqueKeysWithValues: [
                    "monday", "tuesday", "wednesday", "thursday", "friday",
                    "saturday", "sunday",
                ].map { ($0, day) }))
        return .object(config)
    }

    @Test("Asia/Kolkata is accepted, kept as given, and its pickup windows read as Asia/Calcutta's")
    func kolkata() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let kolkata = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops,
                json: Self.configuration(id: "testcafe", zone: "Asia/Kolkata"))
            #expect(kolkata.status == .ok, "\(String(buffer: kolkata.body))")
            let calcutta = try await client.send(
                .put, "/v1/cafes/calcutta", token: environment.ops,
                json: Self.configuration(id: "calcutta", zone: "Asia/Calcutta"))
            #expect(calcutta.status == .created, "\(String(buffer: calcutta.body))")
            let read = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops)
            #expect(try read.json["timeZone"] == "Asia/Kolkata")
            let here = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows", token: environment.ops,
                headers: [.acceptLanguage: "hi-IN"])
            let there = try await client.send(
                .get, "/v1/cafes/calcutta/pickup-windows", token: environment.ops,
                headers: [.acceptLanguage: "hi-IN"])
            #expect(try here.json["windows", 0, "label"] != nil, "\(String(buffer: here.body).prefix(500))")
            #expect(try here.json["windows"] == there.json["windows"])
        }
        #expect(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe.timeZone.identifier == "Asia/Kolkata")
    }

    @Test(
        "an abbreviation or an offset is 422 unknown_time_zone naming timeZone and saying why, and changes nothing",
        arguments: [
            ("EST", "abbreviation"), ("PST8PDT", "offset"), ("GMT+5", "offset"), ("+05:30", "offset"),
            ("UTC+1", "offset"),
        ])
    func refused(_ zone: String, _ reason: String) async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let answer = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops,
                json: Self.configuration(id: "testcafe", zone: zone))
            #expect(answer.status == .unprocessableContent)
            #expect(answer.errorCode == "unknown_time_zone")
            #expect(answer.errorField == "timeZone")
            let message = try #require(try answer.json["error", "message"]?.stringValue)
            #expect(message.contains(zone) && message.contains(reason), "\(message)")
        }
        #expect(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe.timeZone.identifier == "America/Chicago")
    }
}
