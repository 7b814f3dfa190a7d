import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen serve --log-format json` (and `CANTEEN_LOG_FORMAT=json`), read from a real process's
/// stdout and stderr.
@Suite("canteen serve: JSON log lines")
struct JSONLogTests {
    /// Every non-empty line the process wrote, each parsed as a JSON object (nil when it is not one).
    func lines(_ log: String) -> [(text: String, object: [String: Any]?)] {
        log.split(separator: "\n").map { line in
            (String(line), (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])
        }
    }

    func expectEveryLineJSON(_ log: String) {
        for (text, object) in lines(log) {
            #expect(object != nil, "not a JSON object: \(text)")
            guard let object else { continue }
            for key in ["time", "level", "message"] { #expect(object[key] is String, "no \(key) in \(text)") }
            #expect(
                (object["time"] as? String).flatMap(ISO8601DateFormatter.withFractions.date(from:)) != nil,
                "time is not RFC 3339: \(text)")
        }
    }

    @Test(
        "--log-format json: every line one JSON object, start-up lines and request lines (request_id) included"
    )
    func flag() throws {
        let data = temporaryFolder("jsonlog")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServerProcess(dataDirectory: data, extra: ["--log-format", "json"])
        let client = try RawHTTP(port: server.port)
        #expect(try client.exchange("GET", "/healthz", headers: [("X-Request-ID", "probe-1")]).status == 200)
        // A request whose error echoes a client's "text with \"quotes\"\nand a newline".
        let refused = try client.exchange(
            "POST", "/v1/orders",
            headers: [
                ("X-Request-ID", "order-2"),
                ("Content-Type", "application/json"),
            ],
            body: "{\"cafeId\": \"nowhere\"\n")
        #expect(refused.status >= 400)
        #expect(server.terminate(signal: SIGTERM, wait: 30))
        let log = server.log
        expectEveryLineJSON(log)
        let objects = lines(log).compactMap(\.object)
        #expect(objects.contains { ($0["message"] as? String)?.hasPrefix("Canteen: database in") == true }, "\(log)")
        #expect(
            objects.contains { ($0["message"] as? String)?.hasPrefix("Canteen listening on http://127.0.0.1:") == true }
        )
        #expect(objects.contains { ($0["message"] as? String)?.hasPrefix("get a token with: ") == true })
        let probe = objects.first { $0["request_id"] as? String == "probe-1" }
        #expect(probe?["message"] as? String == "request")
        #expect(probe?["route"] as? String == "/healthz")
        #expect(probe?["status"] as? String == "200")
        #expect(probe?["level"] as? String == "info")
        #expect(probe?["trace_id"] == nil, "no trace_id while tracing is off")
        #expect(objects.contains { $0["request_id"] as? String == "order-2" && $0["message"] as? String == "request" })
    }

    @Test("CANTEEN_LOG_FORMAT=json does the same without the flag; the default stays text")
    func environment() throws {
        let data = temporaryFolder("jsonlog-env")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServerProcess(dataDirectory: data, environment: ["CANTEEN_LOG_FORMAT": "json"])
        #expect(try RawHTTP(port: server.port).exchange("GET", "/readyz").status == 200)
        #expect(server.terminate(signal: SIGTERM, wait: 30))
        expectEveryLineJSON(server.log)
        #expect(lines(server.log).count >= 4, "\(server.log)")

        let text = try ServerProcess(dataDirectory: data)
        #expect(text.terminate(signal: SIGTERM, wait: 30))
        #expect(lines(text.log).contains { $0.object == nil }, "the default is not text:\n\(text.log)")
    }

    @Test("a start-up failure in JSON (a damaged database) is one JSON error line naming the file and code")
    func failure() throws {
        let data = temporaryFolder("jsonlog-broken")
        defer { try? FileManager.default.removeItem(at: data) }
        let file = data.appendingPathComponent("canteen.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: file)
        let result = try CanteenProcess.run([
            "serve", "--port", "0", "--data-dir", data.path, "--log-format", "json",
            "--locales", ServerProcess.repositoryRoot.appendingPathComponent("Locales").path,
        ])
        #expect(result.status != 0)
        let log = result.output + result.errors
        expectEveryLineJSON(log)
        let error = lines(log).compactMap(\.object).first { $0["level"] as? String == "error" }
        #expect(error?["code"] as? String == "database_unreadable", "\(log)")
        #expect((error?["message"] as? String)?.contains(file.path) == true, "\(log)")
    }

    @Test("CANTEEN_LOG_FORMAT with another value is refused, naming it")
    func badValue() throws {
        let process = Process()
        process.executableURL = CanteenProcess.executable
        process.arguments = ["serve", "--port", "0", "--data-dir", temporaryFolder("jsonlog-bad").path]
        process.environment = ProcessInfo.processInfo.environment.merging(["CANTEEN_LOG_FORMAT": "xml"]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(said.contains("CANTEEN_LOG_FORMAT") && said.contains("xml"), "\(said)")
    }
}

extension ISO8601DateFormatter {
    /// RFC 3339 with fractional seconds, as the JSON lines write `time`.
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
