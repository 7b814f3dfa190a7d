import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen serve` starting on damaged files, and stopping on SIGTERM.
@Suite("canteen serve: damaged files at start, SIGTERM")
struct ServeLifecycleTests {
    // MARK: - SIGTERM

    @Test("SIGTERM answers a display parked in a long-poll at once and exits, instead of waiting for its 30 s")
    func sigtermReleasesLongPolls() throws {
        let data = temporaryFolder("sigterm")
        defer { try? FileManager.default.removeItem(at: data) }
        let kitchen = try CanteenProcess.run(["tokens", "create", "--role", "kitchen", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let scraper = try CanteenProcess.run(["tokens", "create", "--role", "metrics", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(dataDirectory: data)
        let display = try RawHTTP(port: server.port, timeout: 40)
        let first = try display.exchange(
            "GET", "/v1/cafes/tokyo/tickets", headers: [("Authorization", "Bearer \(kitchen)")])
        let cursor = try #require(first.headers["etag"]?.trimmingCharacters(in: ["\""]))
        #expect(
            display.send(
                RawHTTP.request(
                    "GET", "/v1/cafes/tokyo/tickets?after=\(cursor)&wait=30",
                    headers: [("Authorization", "Bearer \(kitchen)")])))
        // Parked: the metrics count one waiting display.
        let metrics = try RawHTTP(port: server.port)
        var parked = false
        for _ in 0..<200 where !parked {
            let text = try metrics.exchange("GET", "/metrics", headers: [("Authorization", "Bearer \(scraper)")]).text
            parked = text.split(separator: "\n").contains {
                $0.hasPrefix("canteen_feed_waiters ") && Double($0.split(separator: " ").last ?? "") == 1
            }
            if !parked { Thread.sleep(forTimeInterval: 0.05) }
        }
        try #require(parked, "the display never parked")

        let start = Date()
        kill(server.pid, SIGTERM)
        let answer = try display.readResponse()
        let answered = Date().timeIntervalSince(start)
        #expect(answer.status == 200)
        #expect((answer.json as? [String: Any])?["tickets"] as? [Any] != nil)
        #expect(server.terminate(signal: SIGTERM, wait: 20), "the server is still running")
        let exited = Date().timeIntervalSince(start)
        // The poll would otherwise be held to its deadline (30 s); a busy machine gets slack.
        #expect(answered < 10, "the parked display was answered after \(answered) s")
        #expect(exited < 15, "the server exited after \(exited) s")
        #expect(server.process.terminationStatus == 0, "\(server.log.suffix(2000))")
    }

    // MARK: - Damaged files

    /// Runs `canteen serve` on `data` and expects it to refuse to start, naming `file`.
    func expectRefusal(_ data: URL, naming file: URL, mentioning words: [String]) throws {
        let before = try Data(contentsOf: file)
        let result = try CanteenProcess.run([
            "serve", "--port", "0", "--data-dir", data.path,
            "--menus", ServerProcess.repositoryRoot.appendingPathComponent("Menus").path,
            "--locales", ServerProcess.repositoryRoot.appendingPathComponent("Locales").path,
        ])
        #expect(result.status != 0, "serve started on a damaged file:\n\(result.output)")
        let said = result.errors + result.output
        #expect(said.contains(file.path), "the message does not name \(file.path):\n\(said)")
        #expect(said.contains("database_unreadable"), "\(said)")
        for word in words { #expect(said.contains(word), "'\(word)' missing in:\n\(said)") }
        #expect(try Data(contentsOf: file) == before, "the damaged file was changed")
    }

    @Test("a data dir whose canteen.sqlite is not a database is refused, naming the file, and left as it was")
    func notADatabase() throws {
        let data = temporaryFolder("garbage")
        defer { try? FileManager.default.removeItem(at: data) }
        let file = data.appendingPathComponent("canteen.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: file)
        try expectRefusal(data, naming: file, mentioning: ["not a database"])
    }

    @Test("a half-written canteen.sqlite (cut in half) is refused, naming the file, and left as it was")
    func halfWritten() throws {
        let data = temporaryFolder("half")
        defer { try? FileManager.default.removeItem(at: data) }
        // A real database with the five sample cafés, closed cleanly (no WAL left).
        let imported = try CanteenProcess.run([
            "menus", "import", ServerProcess.repositoryRoot.appendingPathComponent("Menus").path,
            "--data-dir", data.path,
        ])
        try #require(imported.status == 0, "\(imported.errors)")
        let file = data.appendingPathComponent("canteen.sqlite")
        let whole = try Data(contentsOf: file)
        try #require(whole.count > 16_384)
        try whole.prefix(whole.count / 2).write(to: file)
        try expectRefusal(data, naming: file, mentioning: [])
    }

    @Test("a stored preference document that is not JSON is refused at start, naming the file and the row")
    func corruptPreferences() throws {
        let data = temporaryFolder("prefs")
        defer { try? FileManager.default.removeItem(at: data) }
        let set = try CanteenProcess.run(["prefs", "set", "ana", "theme", "\"dark\"", "--data-dir", data.path])
        try #require(set.status == 0, "\(set.errors)")
        let file = data.appendingPathComponent("canteen.sqlite")
        // Half a document, as a torn write of another program would leave it.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE userPreferences SET document = '{\\"theme\\": \\"da' WHERE userId = 'ana'")
            db.commit()
            db.close()
            """, file.path,
        ]
        try python.run()
        python.waitUntilExit()
        try #require(python.terminationStatus == 0)
        try expectRefusal(data, naming: file, mentioning: ["row 'ana' of table userPreferences"])
    }

    @Test("a half-written preferences file given to prefs import is refused naming the file, and changes nothing")
    func halfWrittenPreferenceFile() throws {
        let data = temporaryFolder("import")
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(
            try CanteenProcess.run(["prefs", "set", "ana", "theme", "\"dark\"", "--data-dir", data.path]).status == 0)
        let file = data.appendingPathComponent("ana.json")
        try Data(#"{"theme": "light", "locale": "fr-"#.utf8).write(to: file)
        let result = try CanteenProcess.run(["prefs", "import", "ana", file.path, "--data-dir", data.path])
        #expect(result.status != 0)
        #expect(result.errors.contains(file.path), "\(result.errors)")
        #expect(result.errors.contains("malformed_json"), "\(result.errors)")
        #expect(
            try CanteenProcess.run(["prefs", "get", "ana", "theme", "--data-dir", data.path]).output.contains("dark"))
    }
}
