import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The kiosk end to end, with nothing faked but the card: a real `canteen serve`, a real pcscd with the
/// vpcd reader, the test's card emulator, and the `canteen nfc watch` agent between them.
@Suite("A kiosk's NFC agent against a real server", .serialized)
struct KioskAgentTests {
    @Test("a registered badge tapped at the kiosk names its owner; the order placed for them is theirs")
    func badgeTapThenOrder() async throws {
        let server = try LiveCanteen()
        defer { server.stop() }
        let reader = try PrivateReader()
        defer { reader.stop() }
        let ops = try server.token(role: "ops")
        let kiosk = try server.token(role: "kiosk", cafe: "kiosktest")
        let registered = try await server.request(
            "POST", "/v1/cards", token: ops,
            json: [
                "userId": "u-ada", "displayName": "Ada Lovelace", "technology": "type2", "identifier": "04A25C1A2B3C80",
            ])
        #expect(registered.status == 201)
        _ = try await server.request(
            "PUT", "/v1/users/u-ada/preferences/defaultLocation", token: kiosk, json: "kiosktest")

        let page = try await server.request("GET", "/v1/taps", token: kiosk)
        let cursor = try #require(page.json["cursor"] as? String)
        try reader.tap("ntag215")
        let watch = try reader.canteen([
            "nfc", "watch", "--server", server.url, "--token", kiosk, "--format", "jsonl",
            "--count", "1",
        ])
        #expect(watch.status == 0, "\(watch.error)")
        let tap = try #require(try JSONSerialization.jsonObject(with: Data(watch.output.utf8)) as? [String: Any])
        let user = try #require(tap["user"] as? [String: Any])
        #expect(user["userId"] as? String == "u-ada")
        #expect(user["displayName"] as? String == "Ada Lovelace")
        #expect(user["preferredCafeId"] as? String == "kiosktest")

        // The kiosk page, long-polling with the same token, learns of the tap.
        let seen = try await server.request("GET", "/v1/taps?after=\(cursor)", token: kiosk)
        let taps = try #require(seen.json["taps"] as? [[String: Any]])
        #expect((taps.first?["user"] as? [String: Any])?["userId"] as? String == "u-ada")

        // The kiosk orders for the person the badge named.
        let order = try await server.request(
            "POST", "/v1/orders", token: kiosk,
            json: [
                "cafeId": "kiosktest", "lines": [["itemId": "drip_coffee", "quantity": 1, "options": ["small"]]],
                "customer": ["name": "Ada", "userId": user["userId"] as? String ?? ""],
            ], headers: ["Idempotency-Key": "badge-1"])
        #expect(order.status == 201, "\(order.text)")
        #expect((order.json["customer"] as? [String: Any])?["userId"] as? String == "u-ada")
    }

    @Test(
        "an ISO 15693 badge registered from its label (E0 first) or as readers give it (E0 last) names its owner",
        arguments: ["E004010812345678", "78563412080104E0"])
    func iso15693BadgeEitherOrder(registeredAs identifier: String) async throws {
        let server = try LiveCanteen()
        defer { server.stop() }
        let reader = try PrivateReader()
        defer { reader.stop() }
        let ops = try server.token(role: "ops")
        let kiosk = try server.token(role: "kiosk", cafe: "kiosktest")
        let registered = try await server.request(
            "POST", "/v1/cards", token: ops,
            json: [
                "userId": "u-grace", "displayName": "Grace Hopper", "technology": "iso15693", "identifier": identifier,
            ])
        #expect(registered.status == 201, "\(registered.text)")
        // The emulated reader gives the UID E0 last, as the air does.
        try reader.tap("icode-slix")
        let watch = try reader.canteen([
            "nfc", "watch", "--server", server.url, "--token", kiosk, "--format", "jsonl",
            "--count", "1",
        ])
        #expect(watch.status == 0, "\(watch.error)")
        let tap = try #require(try JSONSerialization.jsonObject(with: Data(watch.output.utf8)) as? [String: Any])
        #expect((tap["user"] as? [String: Any])?["userId"] as? String == "u-grace", "\(watch.output)")
    }

    @Test("a coupon minted by ops, written to a tag and tapped at the kiosk is redeemed once in an order")
    func couponTagRedeemed() async throws {
        let server = try LiveCanteen()
        defer { server.stop() }
        let reader = try PrivateReader()
        defer { reader.stop() }
        let ops = try server.token(role: "ops")
        let kiosk = try server.token(role: "kiosk", cafe: "kiosktest")
        let minted = try await server.request(
            "POST", "/v1/coupons", token: ops,
            json: [
                "label": "1 $ off", "amountOff": ["amount": 100, "currency": "USD"], "cafeId": "kiosktest",
            ])
        #expect(minted.status == 201, "\(minted.text)")
        let code = try #require(minted.json["code"] as? String)

        // The tag stays in the field: written, read back, then tapped at the kiosk.
        try reader.tap("ntag215")
        let write = try reader.canteen([
            "nfc", "write-coupon", "--coupon", code, "--server", "https://canteen.example",
            "--text", "1 $ off", "--format", "json",
        ])
        #expect(write.status == 0, "\(write.error)")
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any])
        let records = try #require(report["ndef"] as? [[String: Any]])
        #expect(records.first?["uri"] as? String == "https://canteen.example/kiosk?coupon=\(code)")
        #expect(records.last?["text"] as? String == "1 $ off")

        let watch = try reader.canteen([
            "nfc", "watch", "--server", server.url, "--token", kiosk, "--format", "jsonl",
            "--count", "1",
        ])
        #expect(watch.status == 0, "\(watch.error)")
        let tap = try #require(try JSONSerialization.jsonObject(with: Data(watch.output.utf8)) as? [String: Any])
        #expect(tap["kind"] as? String == "coupon")
        let coupon = try #require(tap["coupon"] as? [String: Any])
        #expect(coupon["label"] as? String == "1 $ off")
        #expect(coupon["usable"] as? Bool == true)

        let body: [String: Any] = [
            "cafeId": "kiosktest", "lines": [["itemId": "drip_coffee", "quantity": 2, "options": ["small"]]],
            "customer": ["name": "Ada"], "coupon": code,
        ]
        let first = try await server.request(
            "POST", "/v1/orders", token: kiosk, json: body,
            headers: ["Idempotency-Key": "coupon-1"])
        #expect(first.status == 201, "\(first.text)")
        let lines = try #require(first.json["lines"] as? [[String: Any]])
        #expect(lines.last?["kind"] as? String == "discount")
        #expect((lines.last?["lineTotal"] as? [String: Any])?["amount"] as? Int == -100)
        let second = try await server.request(
            "POST", "/v1/orders", token: kiosk, json: body,
            headers: ["Idempotency-Key": "coupon-2"])
        #expect(second.status == 409)
        #expect((second.json["error"] as? [String: Any])?["code"] as? String == "coupon_used_up")
    }

    @Test("watch without a reachable server reports the tap with server_unreachable instead of stopping")
    func serverDown() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        try reader.tap("felica")
        let watch = try reader.canteen([
            "nfc", "watch", "--server", "http://127.0.0.1:9", "--token", "cnt_x",
            "--format", "jsonl", "--count", "1",
        ])
        #expect(watch.status == 0)
        #expect(watch.output.contains("\"server_unreachable\""), "\(watch.output)")
        let refused = try reader.canteen(["nfc", "watch", "--server", "ftp://x", "--token", "t"])
        #expect(refused.status == 64)
    }

    @Test(
        "watch writes each tap as a line the moment it happens, through a pipe, in every format; SIGTERM ends it",
        arguments: ["jsonl", "table"])
    func linesThroughAPipe(format: String) throws {
        // Given the agent running as a kiosk runs it: stdout a pipe, no --count
        let reader = try PrivateReader()
        defer { reader.stop() }
        let watch = try reader.start(
            ["nfc", "watch", "--server", "http://127.0.0.1:9", "--token", "cnt_x", "--format", format])
        defer { watch.end() }

        // When two cards are tapped one after the other, each line is read while the agent still runs
        try reader.tap("felica")
        let first = watch.line(within: 30)
        reader.remove()
        try reader.tap("ntag215")
        let second = watch.line(within: 30)

        // Then each tap's line came at once, and SIGTERM ends the agent
        #expect(first?.contains("server_unreachable") == true, "no line for the first tap: \(watch.errorOutput)")
        #expect(second?.contains("server_unreachable") == true, "no line for the second tap: \(watch.errorOutput)")
        if format == "jsonl" {
            let line = try #require(first)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((object?["error"] as? [String: Any])?["code"] as? String == "server_unreachable")
        }
        #expect(watch.process.isRunning)
        #expect(watch.stop(signal: SIGTERM, within: 10))
    }
}

// MARK: - LiveCanteen

/// `canteen serve` on a free loopback port with its own data folder and the sample cafés; stopped by `stop()`.
final class LiveCanteen: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let process = Process()
    let folder: URL
    private(set) var url = ""

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("canteen-kiosk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let menus = folder.appendingPathComponent("menus")
        try FileManager.default.createDirectory(at: menus, withIntermediateDirectories: true)
        try Self.alwaysOpenCafe().write(to: menus.appendingPathComponent("kiosktest.json"))
        process.executableURL = PrivateReader.canteen
        process.arguments = [
            "serve", "--data-dir", folder.appendingPathComponent("data").path, "--port", "0",
            "--menus", menus.path,
            "--locales", Self.repositoryRoot.appendingPathComponent("Locales").path,
        ]
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                url = String(text[range].dropFirst("listening on ".count))
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        stop()
        throw PrivateReaderFailure(
            description: "canteen serve did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// Seattle's menu as café `kiosktest`, open all day every day in a zone without daylight saving time
    /// where it is about 08:00 now, with no lead time: an order for "asap" always finds a window.
    static func alwaysOpenCafe() throws -> Data {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Menus/seattle.json"))
        var cafe = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let zones = [
            -11: "Pacific/Pago_Pago", -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn",
            -7: "America/Phoenix", -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
            -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde",
            0: "Africa/Abidjan", 1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh", 4: "Asia/Dubai",
            5: "Asia/Karachi", 6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai", 9: "Asia/Tokyo",
            10: "Australia/Brisbane", 11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa",
        ]
        let hour =
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour ?? 0
        let offset = ((8 - hour + 11) % 24 + 24) % 24 - 11
        cafe["id"] = "kiosktest"
        cafe["timeZone"] = zones[offset]
        let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        cafe["hours"] = Dictionary(uniqueKeysWithValues: days.map { ($0, [["open": "00:00", "close": "24:00"]]) })
        cafe["pickup"] = ["slotMinutes": 60, "capacity": 1000, "capacityUnit": "orders", "leadMinutes": 0]
        return try JSONSerialization.data(withJSONObject: cafe)
    }

    /// A new token from `canteen tokens create` on the server's data folder.
    func token(role: String, cafe: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = PrivateReader.canteen
        process.arguments =
            ["tokens", "create", "--role", role, "--data-dir", folder.appendingPathComponent("data").path]
            + (cafe.map { ["--cafe", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Answer {
        var status: Int
        var data: Data
        var text: String { String(decoding: data, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:] }
    }

    func request(
        _ method: String, _ path: String, token: String, json: Any? = nil,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(
                ByteBuffer(
                    bytes: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        var body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), data: Data(body.readBytes(length: body.readableBytes) ?? []))
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
