import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen tokens create --role metrics` makes a token that reads `/metrics`;
/// `canteen serve --metrics-public` serves them to anyone.
@Suite("canteen: metrics tokens and --metrics-public")
struct MetricsTokenCommandTests {
    @Test("a metrics token made on the command line reads /metrics, which refuses a request without one")
    func metricsToken() throws {
        let data = temporaryFolder("metrics-token")
        defer { try? FileManager.default.removeItem(at: data) }
        let made = try CanteenProcess.run(["tokens", "create", "--role", "metrics", "--data-dir", data.path])
        #expect(made.status == 0, "\(made.errors)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("cnt_"))
        let bound = try CanteenProcess.run([
            "tokens", "create", "--role", "metrics", "--cafe", "tokyo", "--data-dir", data.path,
        ])
        #expect(bound.status != 0)
        let server = try ServerProcess(dataDirectory: data)
        defer { server.terminate(signal: SIGTERM) }
        let connection = try RawHTTP(port: server.port, timeout: 20)
        #expect(try connection.exchange("GET", "/metrics").status == 401)
        let scraped = try connection.exchange("GET", "/metrics", headers: [("Authorization", "Bearer \(token)")])
        #expect(scraped.status == 200)
        #expect(scraped.text.contains("canteen_feed_waiters"))
        #expect(
            try connection.exchange("GET", "/v1/cafes", headers: [("Authorization", "Bearer \(token)")]).status == 403)
    }

    @Test("canteen serve --metrics-public answers /metrics without a token")
    func publicMetrics() throws {
        let data = temporaryFolder("metrics-public")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServerProcess(dataDirectory: data, extra: ["--metrics-public"])
        defer { server.terminate(signal: SIGTERM) }
        let scraped = try RawHTTP(port: server.port, timeout: 20).exchange("GET", "/metrics")
        #expect(scraped.status == 200)
        #expect(scraped.text.contains("canteen_feed_waiters"))
    }
}
