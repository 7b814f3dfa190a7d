import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen serve --webhook-allow-private CIDR`: webhooks reach internal ranges only when ops
/// say so, and a range mistyped stops the server before it starts.
@Suite("canteen serve --webhook-allow-private")
struct WebhookAllowPrivateTests {
    /// Registers a webhook to a loopback URL on `server` and returns the answer.
    func registerLoopback(on server: ServerProcess, token: String) throws -> RawHTTP.Response {
        try RawHTTP(port: server.port).exchange(
            "POST", "/v1/webhooks",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: #"{"url": "http://127.0.0.1:9/hook", "events": ["order.placed"]}"#)
    }

    @Test(
        "without the option a loopback receiver is refused with webhook_address_not_allowed; with its range it is registered"
    )
    func loopbackNeedsTheOption() throws {
        let data = temporaryFolder("allow-private")
        defer { try? FileManager.default.removeItem(at: data) }
        let ops = try CanteenProcess.run(["tokens", "create", "--role", "ops", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let strict = try ServerProcess(dataDirectory: data)
        let refused = try registerLoopback(on: strict, token: ops)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.errorCode == "webhook_address_not_allowed", "\(refused.text)")
        #expect(strict.terminate(signal: SIGTERM))

        let allowing = try ServerProcess(
            dataDirectory: data,
            extra: [
                "--webhook-allow-private", "10.0.0.0/8",
                "--webhook-allow-private", "127.0.0.0/8",
            ])
        let registered = try registerLoopback(on: allowing, token: ops)
        #expect(registered.status == 201, "\(registered.text)")
        #expect(allowing.terminate(signal: SIGTERM))
    }

    @Test(
        "a range that is not one stops serve at once, naming the option and what was meant",
        arguments: [
            ("10.1.2.3/8", "did you mean 10.0.0.0/8?"), ("localhost", "does not start with an IPv4 or IPv6 address"),
            ("10.0.0.0/33", "prefix length is a number from 0 to 32"),
        ])
    func mistypedRange(range: String, words: String) throws {
        let data = temporaryFolder("allow-private-bad")
        defer { try? FileManager.default.removeItem(at: data) }
        let result = try CanteenProcess.run([
            "serve", "--port", "0", "--data-dir", data.path,
            "--webhook-allow-private", range,
        ])
        #expect(result.status != 0)
        let said = result.errors + result.output
        #expect(said.contains("--webhook-allow-private") && said.contains(words), "\(said)")
    }
}
