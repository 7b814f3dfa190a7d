import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `canteen serve` killed with SIGKILL in the middle of a load, then started again on the same
/// data dir: nothing answered is lost, nothing is there twice, nothing half-written.
@Suite("crash safety: SIGKILL under load, then restart", .serialized)
struct CrashSafetyTests {
    static let cafe = "crashcafe"
    static func orderBody(_ key: String) -> String {
        #"{"cafeId":"\#(cafe)","lines":[{"itemId":"drip","quantity":1}],"customer":{"name":"\#(key)"}}"#
    }

    /// What happened to one request: answered 201 with an order, or no answer.
    enum Outcome: Sendable { case created(String), unanswered }

    /// A preference writer's history for one user: the last value answered 200 (with its
    /// version) and the value in flight when the server died.
    struct PreferenceHistory: Sendable {
        var acknowledged: (value: String, version: Int)?
        var inFlight: String?
    }

    @Test(
        "every order answered 201 is there once, every key replays its order, capacity matches, the feed only moves forward, preferences stand"
    )
    func killMidLoad() throws {
        let data = temporaryFolder("crash")
        let menus = try menusFolder(allDayCafe(id: Self.cafe))
        defer {
            try? FileManager.default.removeItem(at: data)
            try? FileManager.default.removeItem(at: menus)
        }
        let kiosks = try (0..<4).map { _ in
            try CanteenProcess.run(["tokens", "create", "--role", "kiosk", "--data-dir", data.path]).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let kitchen = try CanteenProcess.run(["tokens", "create", "--role", "kitchen", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var server = try ServerProcess(dataDirectory: data, menus: menus)
        let port = server.port

        // Preferences written before the load.
        let before = try RawHTTP(port: port)
        var written: [String: String] = [:]
        for index in 0..<10 {
            let value = "\"before-\(index)\""
            let response = try before.exchange(
                "PUT", "/v1/users/p-\(index)/preferences/theme",
                headers: [("Authorization", "Bearer \(kiosks[0])"), ("Content-Type", "application/json")],
                body: value)
            try #require(response.status == 200, "\(response.text)")
            written["p-\(index)"] = value
        }
        let firstFeed = try before.exchange(
            "GET", "/v1/cafes/\(Self.cafe)/tickets", headers: [("Authorization", "Bearer \(kitchen)")])
        let firstCursor = try #require(
            firstFeed.headers["etag"].flatMap { Int($0.trimmingCharacters(in: ["\""])) },
            "\(firstFeed.status) \(firstFeed.headers)")
        let cursors = Locked<[Int]>([firstCursor])

        // The load: four kiosks placing orders with their own keys, a display long-polling,
        // a preference writer; SIGKILL once 150 orders were answered.
        let outcomes = Locked<[String: Outcome]>([:])
        let created = Locked(0)
        let stop = Locked(false)
        let preferences = Locked(PreferenceHistory())
        let group = DispatchGroup()
        for (number, token) in kiosks.enumerated() {
            DispatchQueue.global().async(group: group) {
                var connection = try? RawHTTP(port: port, timeout: 10)
                var index = 0
                while !stop.current, index < 2000 {
                    let key = "kiosk\(number)-\(index)"
                    index += 1
                    outcomes.withLock { $0[key] = .unanswered }
                    guard let open = connection ?? (try? RawHTTP(port: port, timeout: 10)) else { break }
                    connection = open
                    guard
                        let response = try? open.exchange(
                            "POST", "/v1/orders",
                            headers: [
                                ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                                ("Idempotency-Key", key),
                            ],
                            body: Self.orderBody(key))
                    else {
                        connection = nil
                        continue
                    }
                    if response.status == 201, let object = response.json as? [String: Any],
                        let id = object["id"] as? String
                    {
                        outcomes.withLock { $0[key] = .created(id) }
                        created.withLock { $0 += 1 }
                    }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            guard let display = try? RawHTTP(port: port, timeout: 10) else { return }
            while !stop.current {
                let after = cursors.withLock { $0.last! }
                guard
                    let response = try? display.exchange(
                        "GET", "/v1/cafes/\(Self.cafe)/tickets?after=\(after)&wait=2",
                        headers: [("Authorization", "Bearer \(kitchen)")]),
                    let object = response.json as? [String: Any],
                    let cursor = (object["cursor"] as? String).flatMap(Int.init)
                else { return }
                cursors.withLock { $0.append(cursor) }
            }
        }
        DispatchQueue.global().async(group: group) {
            guard let writer = try? RawHTTP(port: port, timeout: 10) else { return }
            var index = 0
            while !stop.current {
                let value = "\"during-\(index)\""
                index += 1
                preferences.withLock { $0.inFlight = value }
                guard
                    let response = try? writer.exchange(
                        "PUT", "/v1/users/p-load/preferences/theme",
                        headers: [("Authorization", "Bearer \(kiosks[1])"), ("Content-Type", "application/json")],
                        body: value),
                    response.status == 200,
                    let version = response.headers["etag"].flatMap({ Int($0.trimmingCharacters(in: ["\""])) })
                else { return }
                preferences.withLock { $0 = PreferenceHistory(acknowledged: (value, version), inFlight: nil) }
            }
        }
        let deadline = Date().addingTimeInterval(120)
        while created.current < 150 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        try #require(server.terminate(signal: SIGKILL, wait: 30), "the server did not die")
        let firstLog = server.log
        stop.withLock { $0 = true }
        group.wait()
        let answered = outcomes.withLock { $0 }.compactMapValues { if case .created(let id) = $0 { id } else { nil } }
        #expect(answered.count >= 150)
        #expect(Set(answered.values).count == answered.count, "two keys answered with one order")

        // Restart on the same data dir.
        server = try ServerProcess(dataDirectory: data, menus: menus)
        let after = try RawHTTP(port: server.port)
        let kioskFor: (String) -> String = { key in kiosks[Int(key.dropFirst("kiosk".count).prefix { $0.isNumber })!] }

        // Every 201 is there; every key replays: the original order, or (never committed) a new one.
        var orderOfKey: [String: String] = [:]
        for key in outcomes.withLock({ $0.keys.sorted() }) {
            let replay = try after.exchange(
                "POST", "/v1/orders",
                headers: [
                    ("Authorization", "Bearer \(kioskFor(key))"), ("Content-Type", "application/json"),
                    ("Idempotency-Key", key),
                ],
                body: Self.orderBody(key))
            try #require(replay.status == 201, "\(key): \(replay.status) \(replay.text)")
            let id = try #require((replay.json as? [String: Any])?["id"] as? String)
            orderOfKey[key] = id
            if let original = answered[key] {
                #expect(id == original, "\(key) answered \(original) before the crash, \(id) after")
                #expect(replay.headers["idempotent-replayed"] == "true", "\(key) was not replayed")
                let read = try after.exchange(
                    "GET", "/v1/orders/\(original)", headers: [("Authorization", "Bearer \(kioskFor(key))")])
                #expect(read.status == 200, "\(original) is gone")
            }
        }
        #expect(Set(orderOfKey.values).count == orderOfKey.count, "one order for two keys")

        // The kitchen feed from the start: each order once (one ticket each), the cursor never behind.
        var cursor = 0
        var ticketOrders: [String] = []
        while true {
            let page = try after.exchange(
                "GET", "/v1/cafes/\(Self.cafe)/tickets?after=\(cursor)",
                headers: [("Authorization", "Bearer \(kitchen)")])
            let object = try #require(page.json as? [String: Any], "\(page.status) \(page.text)")
            let tickets = try #require(object["tickets"] as? [[String: Any]])
            ticketOrders += tickets.compactMap { $0["orderId"] as? String }
            let next = try #require((object["cursor"] as? String).flatMap(Int.init))
            #expect(next >= cursor)
            if tickets.isEmpty { break }
            cursor = next
        }
        let seen = cursors.withLock { $0 }
        #expect(seen == seen.sorted(), "the feed's cursor went back before the crash: \(seen)")
        #expect(
            cursor >= seen.max() ?? 0, "the feed's cursor went back across the crash: \(seen.max() ?? 0) → \(cursor)")
        #expect(ticketOrders.count == Set(ticketOrders).count, "an order's ticket is in the feed twice")
        #expect(Set(ticketOrders) == Set(orderOfKey.values), "orders stored and orders of keys differ")

        // Capacity used equals the orders stored.
        let windows = try after.exchange(
            "GET", "/v1/cafes/\(Self.cafe)/pickup-windows", headers: [("Authorization", "Bearer \(kiosks[0])")])
        let list = try #require((windows.json as? [String: Any])?["windows"] as? [[String: Any]])
        let used = list.reduce(0) { $0 + (($1["capacity"] as? Int ?? 0) - ($1["remaining"] as? Int ?? 0)) }
        #expect(used == orderOfKey.count, "capacity used \(used), orders \(orderOfKey.count)")

        // Preferences: those written before the load intact, the one being written either value.
        for (user, value) in written {
            let read = try after.exchange(
                "GET", "/v1/users/\(user)/preferences/theme", headers: [("Authorization", "Bearer \(kiosks[0])")])
            #expect(
                read.status == 200
                    && (read.json as? [String: Any])?["value"] as? String == String(value.dropFirst().dropLast()),
                "\(user): \(read.text)")
        }
        let history = preferences.withLock { $0 }
        if let acknowledged = history.acknowledged {
            let read = try after.exchange(
                "GET", "/v1/users/p-load/preferences/theme", headers: [("Authorization", "Bearer \(kiosks[0])")])
            let value = ((read.json as? [String: Any])?["value"] as? String).map { "\"\($0)\"" }
            let version = read.headers["etag"].flatMap { Int($0.trimmingCharacters(in: ["\""])) } ?? 0
            if version == acknowledged.version {
                #expect(value == acknowledged.value)
            } else {
                #expect(
                    version == acknowledged.version + 1 && value == history.inFlight,
                    "version \(version), value \(value ?? "nil"); acknowledged \(acknowledged), in flight \(history.inFlight ?? "nil")"
                )
            }
        }
        #expect(server.terminate(signal: SIGTERM))
        // Both servers' whole logs: one line per request, no token anywhere.
        for log in [firstLog, server.log] {
            #expect(log.contains("route=/v1/orders status=201"))
            for secret in kiosks + [kitchen] { #expect(!log.contains(secret), "a token in the server's log") }
            #expect(!log.lowercased().contains("bearer "))
        }
    }
}
