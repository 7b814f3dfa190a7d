import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

// docs/api.md: begin
/// Whether `header` (Canteen-Signature) signs `body` with `secret`, made at most `tolerance` seconds ago.
func verified(header: String, body: Data, secret: String, tolerance: TimeInterval = 300) -> Bool {
    let parts = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
    guard let stamp = parts.first(where: { $0.first == "t" })?.last, let timestamp = Int(stamp),
        abs(Date().timeIntervalSince1970 - Double(timestamp)) <= tolerance
    else { return false }
    let key = SymmetricKey(data: Data(secret.utf8))
    let message = Data("\(timestamp).".utf8) + body
    return parts.filter { $0.count == 2 && $0[0] == "v1" }.contains { part in
        guard let signature = hexBytes(part[1]) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key)
    }
}

func hexBytes(_ hex: String) -> [UInt8]? {
    guard hex.count == 64 else { return nil }
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
    }
    return bytes
}
// docs/api.md: end

/// The receiver examples of docs/api.md ("Following an order, and webhooks"), run against real
/// deliveries: the Swift one above (the test checks docs/api.md holds it word for word) and the
/// Python one taken from docs/api.md.
@Suite("The webhook verification examples of docs/api.md")
struct WebhookVerificationExampleTests {
    static let page = Fixtures.repositoryRoot.appendingPathComponent("docs/api.md")

    /// The code block of docs/api.md that starts with `firstLine`.
    static func block(startingWith firstLine: String) throws -> String {
        let text = try String(contentsOf: page, encoding: .utf8)
        guard let start = text.range(of: firstLine) else {
            throw TestFailure("docs/api.md has no block starting \(firstLine)")
        }
        guard let end = text.range(of: "```", range: start.lowerBound..<text.endIndex) else {
            throw TestFailure("unclosed block")
        }
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test("the Swift function here is the one in docs/api.md, word for word")
    func swiftMatchesReadme() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// docs/api.md: begin\n"))
        let end = try #require(source.range(of: "// docs/api.md: end"))
        let function = String(source[begin.upperBound..<end.lowerBound])
        #expect(try String(contentsOf: Self.page, encoding: .utf8).contains(function))
    }

    @Test("both examples accept a real delivery and refuse a changed body, another secret and an old signature")
    func examplesVerifyDeliveries() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let receiver = WebhookReceiver()
        let python = try Self.block(startingWith: "import hashlib, hmac, time")
        try await receiver.serve { port in
            try await withRouter(environment) { client in
                let hook = try await client.registerWebhook(
                    url: "http://127.0.0.1:\(port)/hook", events: ["order.placed"],
                    token: environment.ops)
                try await withDeliveryService(environment) {
                    _ = try await client.placed(saladOrder(), token: environment.kiosk)
                    #expect(try await eventually { receiver.accepted.count == 1 })
                }
                let delivery = try #require(receiver.accepted.first)
                let body = Data(delivery.body)
                let old = "t=1700000000,v1=" + String(repeating: "0", count: 64)
                let cases: [(String, Data, String, Bool)] = [
                    (delivery.signature, body, hook.secret, true),
                    (delivery.signature, body + Data(" ".utf8), hook.secret, false),
                    (delivery.signature, body, "whsec_another", false),
                    (old, body, hook.secret, false),
                ]
                for (header, body, secret, expected) in cases {
                    #expect(verified(header: header, body: body, secret: secret) == expected, "Swift: \(header)")
                    #expect(
                        try Self.runPython(python, header: header, body: body, secret: secret) == expected,
                        "Python: \(header)")
                }
            }
        }
    }

    /// Runs the Python function of docs/api.md on one delivery with the system's python3.
    static func runPython(_ code: String, header: String, body: Data, secret: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            code + """

                import os, sys
                print(verified(os.environ["HEADER"], sys.stdin.buffer.read(), os.environ["SECRET"]))
                """,
        ]
        process.environment = [
            "HEADER": header, "SECRET": secret, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(body)
        try input.fileHandleForWriting.close()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("python3 failed: \(answer)") }
        return answer.trimmingCharacters(in: .whitespacesAndNewlines) == "True"
    }
}
