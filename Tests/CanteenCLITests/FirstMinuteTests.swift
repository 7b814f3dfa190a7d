import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The first minute: a first `canteen serve` on an empty database prints links that open the
/// console and one sample café's screens with tokens of their own, made once.
@Suite("canteen serve: the first minute's links")
struct FirstMinuteTests {
    /// The links a server printed: title and URL.
    static func links(in log: String) -> [(title: String, url: String)] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "http://") else { return nil }
            let title = line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty, line.contains("#token=") else { return nil }
            return (title, String(line[range.lowerBound...]))
        }
    }

    @Test(
        "the first start prints the console and one café's kitchen display, kiosk and board, each with a working token of its kind, listed by tokens list; the next start makes none"
    )
    func firstStart() throws {
        let data = temporaryFolder("first-minute")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServerProcess(dataDirectory: data, extra: ["--welcome", "always"])
        var links: [(title: String, url: String)] = []
        for _ in 0..<400 where links.count < 4 {
            links = Self.links(in: server.log)
            if links.count < 4 { Thread.sleep(forTimeInterval: 0.05) }
        }
        try #require(links.count == 4, "printed:\n\(server.log)")
        let paths = links.map { $0.url.replacingOccurrences(of: "http://127.0.0.1:\(server.port)", with: "") }
        #expect(paths[0].hasPrefix("/ops#token=cnt_"))
        let cafe = try #require(paths[1].split(separator: "=").dropFirst().first?.split(separator: "#").first)
        #expect(paths[1].hasPrefix("/kds?cafe=\(cafe)#token=cnt_"))
        #expect(paths[2].hasPrefix("/kiosk?cafe=\(cafe)#token=cnt_"))
        #expect(paths[3].hasPrefix("/board?cafe=\(cafe)#token=cnt_"))
        let http = try RawHTTP(port: server.port)
        for (path, role) in zip(paths, ["ops", "kitchen", "kiosk", "kiosk"]) {
            let secret = String(try #require(path.split(separator: "=").last))
            let answer = try http.exchange("GET", "/v1/token", headers: [("Authorization", "Bearer \(secret)")])
            #expect(answer.status == 200)
            #expect((answer.json as? [String: Any])?["role"] as? String == role)
            if role != "ops" { #expect((answer.json as? [String: Any])?["cafeId"] as? String == String(cafe)) }
            let page = try http.exchange("GET", String(path.split(separator: "#")[0]))
            #expect(page.status == 200)
        }
        #expect(server.terminate(signal: SIGTERM))
        let listed = try CanteenProcess.run(["tokens", "list", "--data-dir", data.path]).output
        #expect(listed.split(separator: "\n").filter { $0.contains("first minute") }.count == 4)
        for (_, url) in links { #expect(!listed.contains(String(url.split(separator: "=").last!))) }

        let again = try ServerProcess(dataDirectory: data, extra: ["--welcome", "always"])
        Thread.sleep(forTimeInterval: 1)
        #expect(Self.links(in: again.log).isEmpty, "a second start printed links:\n\(again.log)")
        #expect(again.terminate(signal: SIGTERM))
        let after = try CanteenProcess.run(["tokens", "list", "--data-dir", data.path]).output
        #expect(after.split(separator: "\n").count == 4)
    }

    @Test("a server whose output is not a terminal (a service's log) makes no first-minute tokens by default")
    func notATerminal() throws {
        let data = temporaryFolder("first-minute-log")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServerProcess(dataDirectory: data)
        Thread.sleep(forTimeInterval: 1)
        #expect(server.terminate(signal: SIGTERM))
        #expect(!server.log.contains("#token="))
        #expect(try CanteenProcess.run(["tokens", "list", "--data-dir", data.path]).output.isEmpty)
    }
}
