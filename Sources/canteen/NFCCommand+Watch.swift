import ArgumentParser
import AsyncHTTPClient
import CardReader
import Foundation
import NFC
import NIOCore
import NIOHTTP1

// MARK: - watch

extension NFCCommand {
    /// `canteen nfc watch`: the kiosk's NFC agent. Every tap is reported to the server (`POST /v1/taps`) with the
    /// kiosk's token, which identifies a badge or checks a coupon tag and tells the kiosk's page; each tap is
    /// printed (a table line, or one JSON object per tap).
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the kiosk's NFC agent: report every badge or coupon tap to the server and print it.")

        @Option(help: "The Canteen server, e.g. http://127.0.0.1:8080.")
        var server: String

        @Option(help: "The kiosk's token (CANTEEN_TOKEN when absent).")
        var token: String?

        @Option(help: "Reader name (or its start), as `canteen nfc readers` lists it; the first reader by default.")
        var reader: String?

        @Option(help: "table or jsonl (one JSON object per tap).")
        var format: WatchFormat = .table

        @Option(help: "Stop after this many taps (0: run until stopped).")
        var count: Int = 0

        enum WatchFormat: String, ExpressibleByArgument, CaseIterable {
            case table
            case jsonl
        }

        func validate() throws {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server is an http(s) URL such as http://127.0.0.1:8080")
            }
            guard token ?? ProcessInfo.processInfo.environment["CANTEEN_TOKEN"] != nil else {
                throw ValidationError("a kiosk token is needed: --token or CANTEEN_TOKEN")
            }
            guard count >= 0 else { throw ValidationError("--count is 0 or more") }
        }

        func run() async throws {
            let secret = token ?? ProcessInfo.processInfo.environment["CANTEEN_TOKEN"] ?? ""
            let reporter = TapReporter(server: URL(string: server)!, token: secret)
            do {
                try await watch(reporter)
            } catch {
                try? await reporter.client.shutdown()
                throw error
            }
            try await reporter.client.shutdown()
        }

        func watch(_ reporter: TapReporter) async throws {
            try await NFCCommand.reporting {
                let device = try await PCSCContext().reader(named: reader)
                if format == .table { FileHandle.standardError.write(Data("watching \(device.name)\n".utf8)) }
                var taps = 0
                while count == 0 || taps < count {
                    guard try await device.waitForCard(timeout: nil) else { continue }
                    taps += 1
                    do {
                        let report = try await CardInspector().report(try await device.connect())
                        let answer = try await reporter.report(TapReporter.tap(of: report))
                        print(answer)
                    } catch let error as CardReaderError {
                        print(Problem(code: error.code, message: error.message))
                    } catch let error as TapReporter.Failure {
                        print(Problem(code: error.code, message: error.message))
                    }
                    if count != 0, taps >= count { break }
                    _ = try await device.waitForRemoval(timeout: nil)
                }
            }
        }

        struct Problem: Encodable {
            var code: String
            var message: String
        }

        private func print(_ problem: Problem) {
            switch format {
            case .jsonl:
                let line = (try? TapReporter.encoder.encode(["error": problem])) ?? Data()
                emit(String(decoding: line, as: UTF8.self))
            case .table:
                emit("error     \(problem.message) [\(problem.code)]")
            }
        }

        private func print(_ answer: TapReporter.Answer) {
            switch format {
            case .jsonl:
                emit(String(decoding: answer.json, as: UTF8.self))
            case .table:
                emit(answer.line)
            }
        }

        /// Writes one line to stdout at once, whatever stdout is: through a pipe (how a kiosk agent runs) a
        /// buffered line would wait for the buffer to fill, and a SIGTERM would lose it.
        private func emit(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}

// MARK: - TapReporter

/// Reports taps to the server over HTTP and reads its answers.
struct TapReporter: Sendable {
    let server: URL
    let token: String
    /// The agent's HTTP client (shut down by its owner): a server that refuses the connection is reported at once,
    /// not retried until the tap's deadline.
    let client: HTTPClient

    init(server: URL, token: String) {
        self.server = server
        self.token = token
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(10))
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    struct Failure: Error {
        var code: String
        var message: String
    }

    /// What the server made of a tap: its JSON as sent, and a line for a terminal.
    struct Answer {
        var json: Data
        var line: String
    }

    /// The body of `POST /v1/taps` for a card: a coupon tag's code when one of its URIs carries
    /// `coupon=CODE`, else the card itself (technology and identifier).
    static func tap(of report: CardReport) -> [String: String] {
        for uri in report.ndef.compactMap(\.uri) {
            if let code = URLComponents(string: uri)?.queryItems?.first(where: { $0.name == "coupon" })?.value,
                !code.isEmpty
            {
                return ["coupon": code]
            }
        }
        return ["technology": report.technology.rawValue, "identifier": report.identifier]
    }

    /// The largest answer read from the server.
    static let answerLimit = 1 << 20

    func report(_ tap: [String: String]) async throws -> Answer {
        var request = HTTPClientRequest(url: server.appendingPathComponent("v1/taps").absoluteString)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try Self.encoder.encode(tap)))
        let data: Data
        let status: Int
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            var body = try await response.body.collect(upTo: Self.answerLimit)
            data = Data(body.readBytes(length: body.readableBytes) ?? [])
            status = Int(response.status.code)
        } catch {
            throw Failure(code: "server_unreachable", message: "\(server.absoluteString) cannot be reached: \(error)")
        }
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard status == 201 else {
            let error = json["error"] as? [String: Any]
            throw Failure(
                code: error?["code"] as? String ?? "http_\(status)",
                message: error?["message"] as? String ?? "the server answered \(status)")
        }
        return Answer(json: data, line: Self.line(json, tap: tap))
    }

    /// `badge     type2 04A25C1A2B3C80  u-ada  Ada Lovelace  (prefers seattle)`, or the coupon's terms.
    static func line(_ json: [String: Any], tap: [String: String]) -> String {
        let error = json["error"] as? [String: Any]
        let problem = error.map { " \($0["message"] as? String ?? "") [\($0["code"] as? String ?? "")]" } ?? ""
        if let code = tap["coupon"] {
            let coupon = json["coupon"] as? [String: Any]
            let label = coupon?["label"] as? String ?? code
            let state = (coupon?["usable"] as? Bool) == true ? "usable" : (coupon?["reason"] as? String ?? "")
            return "coupon    \(label)  \(state)\(problem)"
        }
        let card = "\(tap["technology"] ?? "") \(tap["identifier"] ?? "")"
        guard let user = json["user"] as? [String: Any] else { return "badge     \(card) \(problem)" }
        let name = user["displayName"] as? String ?? ""
        let cafe = (user["preferredCafeId"] as? String).map { "  (prefers \($0))" } ?? ""
        return "badge     \(card)  \(user["userId"] as? String ?? "")  \(name)\(cafe)"
    }
}
