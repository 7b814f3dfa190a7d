import CanteenAPI
import Foundation
import Logging
import Testing

/// The JSON log line itself (the process-level behaviour is in CanteenCLITests' JSONLogTests).
@Suite("JSON log lines")
struct JSONLogHandlerTests {
    let time = Date(timeIntervalSince1970: 1_795_000_000.123456)

    func parsed(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("one object a line: time (UTC, microseconds), level, message, logger, the metadata as members, source")
    func shape() throws {
        let line = JSONLogHandler.line(
            time: time, level: .notice, message: "Canteen listening", label: "canteen",
            metadata: ["request_id": "abc", "status": "201"], source: "CanteenApp")
        #expect(line.hasSuffix("}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(line.hasPrefix("{\"time\":\"2026-11-18T"))
        let object = try parsed(line)
        #expect(object["time"] as? String == "2026-11-18T11:06:40.123456Z")
        #expect(object["level"] as? String == "notice")
        #expect(object["message"] as? String == "Canteen listening")
        #expect(object["logger"] as? String == "canteen")
        #expect(object["request_id"] as? String == "abc")
        #expect(object["status"] as? String == "201")
        #expect(object["source"] as? String == "CanteenApp")
    }

    @Test("quotes, backslashes, newlines, control characters and line separators in a message stay inside one line")
    func escaping() throws {
        let message = "a \"quoted\" \\ path\nsecond line\r\t\u{1}\u{7F} \u{2028} ünïcødé 東京"
        let line = JSONLogHandler.line(
            time: time, level: .error, message: message, label: "x", metadata: [:], source: "s")
        #expect(line.dropLast().contains("\n") == false)
        #expect(line.contains("\\u2028"))
        #expect(try parsed(line)["message"] as? String == message)
    }

    @Test("nested metadata is written as JSON; a key clashing with a fixed member is prefixed meta.")
    func nested() throws {
        let metadata: Logger.Metadata = [
            "list": ["a", "b"], "map": ["k": "v", "n": ["x"]], "message": "clash", "time": "clash too",
        ]
        let object = try parsed(
            JSONLogHandler.line(
                time: time, level: .info, message: "m", label: "l",
                metadata: metadata, source: "s"))
        #expect(object["list"] as? [String] == ["a", "b"])
        #expect((object["map"] as? [String: Any])?["k"] as? String == "v")
        #expect((object["map"] as? [String: Any])?["n"] as? [String] == ["x"])
        #expect(object["message"] as? String == "m")
        #expect(object["meta.message"] as? String == "clash")
        #expect(object["meta.time"] as? String == "clash too")
    }
}
