import AsyncHTTPClient
import CanteenCore
import CanteenJSON
import CanteenNotify
import CanteenTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real `canteen serve` process (the executable built next to the tests, or `CANTEEN_BIN`).
final class ServerProcess: @unchecked Sendable {
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["CANTEEN_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "canteen")
    }()

    let port: Int
    private let process = Process()

    /// Starts `canteen serve` on `port` with short webhook retry delays (and `extra` options) and
    /// waits until it answers.
    init(dataDirectory: URL, port: Int, http: HTTPClient, extra: [String] = []) async throws {
        self.port = port
        process.executableURL = Self.executable
        let root = Fixtures.repositoryRoot
        process.arguments =
            [
                "serve", "--data-dir", dataDirectory.path, "--port", "\(port)",
                "--menus", root.appendingPathComponent("Menus").path, "--locales",
                root.appendingPathComponent("Locales").path,
                "--log-level", "error", "--webhook-timeout", "1", "--webhook-first-retry", "0.1",
                "--webhook-max-retry-delay", "0.5",
                "--webhook-allow-private", "127.0.0.0/8",
            ] + extra
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let response = try? await http.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"),
                timeout: .seconds(1)), response.status == .ok
            {
                return
            }
            guard process.isRunning else { throw TestFailure("canteen serve exited with \(process.terminationStatus)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("canteen serve did not answer on port \(port)")
    }

    /// SIGKILL: no graceful shutdown, no last bookkeeping.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, and how long the process took to exit (nil when it still ran after `limit`).
    func sigterm(waitingUpTo limit: Duration) -> Duration? {
        let start = ContinuousClock.now
        process.terminate()
        while process.isRunning && ContinuousClock.now - start < limit { usleep(10_000) }
        return process.isRunning ? nil : ContinuousClock.now - start
    }

    /// How the process ended: `(.exit, 0)` for a clean exit.
    var termination: (reason: Process.TerminationReason, status: Int32) {
        (process.terminationReason, process.terminationStatus)
    }

    /// SIGTERM, then SIGKILL when it lingers.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<100 where process.isRunning { usleep(50_000) }
        kill()
    }

    /// Runs a `canteen` command to its end and returns its standard output.
    static func command(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("canteen \(arguments.joined(separator: " ")) failed")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// JSON over HTTP to a live server.
struct LiveAPI: Sendable {
    let http: HTTPClient
    let port: Int

    @discardableResult
    func send(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, token: String, json: JSONValue? = nil,
        key: String? = nil
    ) async throws -> (status: Int, body: JSONValue?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let key { request.headers.add(name: "Idempotency-Key", value: key) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(json.encoded())
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (
            Int(response.status.code),
            bytes.readableBytes > 0 ? try? JSONValue.parse(Data(bytes.readableBytesView)) : nil
        )
    }

    /// Requires a 2xx answer and returns its body.
    func ok(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, token: String, json: JSONValue? = nil,
        key: String? = nil
    ) async throws -> JSONValue {
        let (status, body) = try await send(method, path, token: token, json: json, key: key)
        guard (200..<300).contains(status) else {
            throw TestFailure("\(method) \(path): \(status) \(String(describing: body))")
        }
        return body ?? .null
    }
}

@Suite("Webhooks across a killed server", .serialized)
struct WebhookRestartTests {
    /// A café open all day, every day, in a zone where it is about 08:00 now, so that a real
    /// server on the real clock always finds a pickup window (as scripts/bench-server.sh does).
    static func alldayCafe() -> (configuration: JSONValue, menu: JSONValue) {
        let zones = [
            -11: "Pacific/Pago_Pago", -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn",
            -7: "America/Phoenix", -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
            -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde",
            0: "Africa/Abidjan", 1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh", 4: "Asia/Dubai",
            5: "Asia/Karachi", 6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai", 9: "Asia/Tokyo",
            10: "Australia/Brisbane", 11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa",
        ]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let offset = (8 - calendar.component(.hour, from: Date()) + 11 + 24) % 24 - 11
        var document = Fixtures.cafeDocument(id: "allday", timeZone: zones[offset]!, major: 950)
        let allDay: JSONValue = [["open": "00:00", "close": "24:00"]]
        document["hours"] = .object(
            Dictionary(
                uniqueKeysWithValues: [
                    "monday", "tuesday", "wednesday", "thursday", "friday",
                    "saturday", "sunday",
                ].map { ($0, allDay) }))
        document["pickup"] = ["slotMinutes": 60, "capacity": 1000, "capacityUnit": "orders", "leadMinutes": 0]
        return (.object(Fixtures.cafeConfiguration(document)), .object(Fixtures.menuDocument(document)))
    }

    @Test(
        "a receiver down while the server is SIGKILLed and restarted gets every event afterwards; so does one whose request was in flight"
    )
    func restart() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ops = try ServerProcess.command(["tokens", "create", "--role", "ops", "--data-dir", directory.path])
        let kiosk = try ServerProcess.command(["tokens", "create", "--role", "kiosk", "--data-dir", directory.path])
        let kitchen = try ServerProcess.command(["tokens", "create", "--role", "kitchen", "--data-dir", directory.path])
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let serverPort = try RawHTTP.freePort()
        let receiverPort = try RawHTTP.freePort()
        let servers = Mutex<[ServerProcess]>([])
        defer { servers.withLock { $0.forEach { $0.stop() } } }
        do {
            let first = try await ServerProcess(dataDirectory: directory, port: serverPort, http: http)
            servers.withLock { $0.append(first) }
            let api = LiveAPI(http: http, port: serverPort)
            let cafe = Self.alldayCafe()
            _ = try await api.ok(.PUT, "/v1/cafes/allday", token: ops, json: cafe.configuration)
            _ = try await api.ok(.PUT, "/v1/cafes/allday/menu", token: ops, json: cafe.menu)
            let hook = try await api.ok(
                .POST, "/v1/webhooks", token: ops,
                json: [
                    "url": .string("http://127.0.0.1:\(receiverPort)/canteen"),
                    "events": ["order.placed", "order.ready"],
                ])
            let hookID = try #require(hook["id"]?.stringValue)
            let secret = try #require(hook["secret"]?.stringValue)

            // The receiver is down: orders are placed and made ready, and every attempt fails.
            var orderIDs: [String] = []
            for number in 0..<5 {
                let order = try await api.ok(
                    .POST, "/v1/orders", token: kiosk,
                    json: [
                        "cafeId": "allday", "lines": [["itemId": "salad", "quantity": 1]], "pickup": "asap",
                        "customer": ["name": .string("Guest \(number)")],
                    ], key: "restart-\(number)")
                let ticket = try #require(order["tickets", 0, "id"]?.stringValue)
                for status in ["preparing", "ready"] {
                    _ = try await api.ok(
                        .POST, "/v1/tickets/\(ticket)/status", token: kitchen, json: ["status": .string(status)])
                }
                orderIDs.append(try #require(order["id"]?.stringValue))
            }
            #expect(
                try await eventually {
                    let listing = try await api.ok(.GET, "/v1/webhooks/\(hookID)/deliveries", token: ops)
                    guard case .array(let deliveries)? = listing["deliveries"] else { return false }
                    return deliveries.contains { $0["attempts", 0, "error"] != nil }
                }, "attempts fail while the receiver is down")
            first.kill()
            let placedIDs = orderIDs

            let hang = Mutex(false)
            let receiver = WebhookReceiver { _ in
                hang.withLock { $0 } ? .hold(while: { hang.withLock { $0 } }, then: 503) : .status(200)
            }
            try await receiver.serve(port: receiverPort) { _ in
                // Restarted, the server delivers everything the outbox holds.
                let second = try await ServerProcess(dataDirectory: directory, port: serverPort, http: http)
                servers.withLock { $0.append(second) }
                #expect(try await eventually { Set(receiver.accepted.map(\.eventID)).count == 10 })
                var pairs: Set<String> = []
                for request in receiver.accepted {
                    pairs.insert("\(request.orderID) \(request.eventType)")
                    #expect(
                        WebhookSignature.verify(
                            header: request.signature, body: request.body, secret: secret, now: Date()))
                }
                #expect(pairs == Set(placedIDs.flatMap { ["\($0) order.placed", "\($0) order.ready"] }))

                // A request in flight when the server is killed is made again after the restart.
                hang.withLock { $0 = true }
                let late = try await api.ok(
                    .POST, "/v1/orders", token: kiosk,
                    json: [
                        "cafeId": "allday", "lines": [["itemId": "salad", "quantity": 1]], "pickup": "asap",
                        "customer": ["name": "Late"],
                    ], key: "restart-late")
                let lateID = try #require(late["id"]?.stringValue)
                // Its own request, not any: an earlier event sent once more (at least once) would do too.
                #expect(try await eventually { receiver.requests.contains { $0.orderID == lateID } })
                second.kill()
                hang.withLock { $0 = false }
                let third = try await ServerProcess(dataDirectory: directory, port: serverPort, http: http)
                servers.withLock { $0.append(third) }
                #expect(try await eventually { receiver.accepted.contains { $0.orderID == lateID } })
                let lateRequests = receiver.requests.filter { $0.orderID == lateID }
                #expect(lateRequests.count >= 2, "sent again after the restart")
                #expect(Set(lateRequests.map(\.eventID)).count == 1, "with the same event id")
                third.stop()
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    @Test(
        "SIGTERM during an attempt to a receiver that never answers: the server exits at once, not after the webhook timeout, and delivers the event once restarted"
    )
    func sigtermDuringAttempt() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ops = try ServerProcess.command(["tokens", "create", "--role", "ops", "--data-dir", directory.path])
        let kiosk = try ServerProcess.command(["tokens", "create", "--role", "kiosk", "--data-dir", directory.path])
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let serverPort = try RawHTTP.freePort()
        // A timeout far longer than any bound below: waiting it out cannot pass for an exit.
        let options = ["--webhook-timeout", "60"]
        let servers = Mutex<[ServerProcess]>([])
        defer { servers.withLock { $0.forEach { $0.stop() } } }
        let hang = Mutex(true)
        let receiver = WebhookReceiver { _ in
            hang.withLock { $0 } ? .hold(while: { hang.withLock { $0 } }, then: 503) : .status(200)
        }
        do {
            try await receiver.serve { receiverPort in
                // Whatever happens, the held request is let go, so that the receiver can stop.
                defer { hang.withLock { $0 = false } }
                let first = try await ServerProcess(
                    dataDirectory: directory, port: serverPort, http: http,
                    extra: options)
                servers.withLock { $0.append(first) }
                let api = LiveAPI(http: http, port: serverPort)
                let cafe = Self.alldayCafe()
                _ = try await api.ok(.PUT, "/v1/cafes/allday", token: ops, json: cafe.configuration)
                _ = try await api.ok(.PUT, "/v1/cafes/allday/menu", token: ops, json: cafe.menu)
                let hook = try await api.ok(
                    .POST, "/v1/webhooks", token: ops,
                    json: [
                        "url": .string("http://127.0.0.1:\(receiverPort)/canteen"),
                        "events": ["order.placed"],
                    ])
                let hookID = try #require(hook["id"]?.stringValue)
                let order = try await api.ok(
                    .POST, "/v1/orders", token: kiosk,
                    json: [
                        "cafeId": "allday", "lines": [["itemId": "salad", "quantity": 1]], "pickup": "asap",
                        "customer": ["name": "Held"],
                    ], key: "sigterm-held")
                let orderID = try #require(order["id"]?.stringValue)
                try #require(
                    try await eventually { receiver.requests.contains { $0.orderID == orderID } },
                    "the attempt never reached the receiver")

                // The receiver holds the request; SIGTERM now.
                let exit = first.sigterm(waitingUpTo: .seconds(30))
                print(
                    "canteen serve exited \(exit.map { "\($0)" } ?? "not at all (30 s)") after SIGTERM "
                        + "with a webhook attempt in flight (timeout 60 s)")
                let exited = try #require(exit, "the server did not exit within 30 s")
                // Generous for a busy machine; waiting out the attempt would take 60 s.
                #expect(exited < .seconds(5), "the server took \(exited) to exit")
                #expect(
                    first.termination.reason == .exit && first.termination.status == 0,
                    "a clean exit, not a crash: \(first.termination)")

                // Started again, with a receiver that now answers: the event is delivered, once accepted.
                hang.withLock { $0 = false }
                let second = try await ServerProcess(
                    dataDirectory: directory, port: serverPort, http: http,
                    extra: options)
                servers.withLock { $0.append(second) }
                #expect(
                    try await eventually(within: .seconds(30)) {
                        receiver.accepted.contains { $0.orderID == orderID }
                    })
                #expect(
                    Set(receiver.requests.filter { $0.orderID == orderID }.map(\.eventID)).count == 1,
                    "the same event, sent again")
                #expect(
                    try await eventually {
                        let listing = try await api.ok(.GET, "/v1/webhooks/\(hookID)/deliveries", token: ops)
                        return listing["deliveries", 0, "state"] == "delivered"
                    })
                let listing = try await api.ok(.GET, "/v1/webhooks/\(hookID)/deliveries", token: ops)
                let attempts = listing["deliveries", 0, "attempts"]
                print("attempts after the restart: \(attempts.map { "\($0)" } ?? "none")")
                let interrupted = attempts?[0]?["error"]?.stringValue ?? ""
                #expect(
                    interrupted.hasPrefix("interrupted after") && interrupted.hasSuffix("the server shut down"),
                    "\(interrupted)")
                #expect(attempts?[0]?["statusCode"] == nil)
                #expect(attempts?[1]?["statusCode"] == 200)
                second.stop()
            }
        } catch {
            hang.withLock { $0 = false }
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}
