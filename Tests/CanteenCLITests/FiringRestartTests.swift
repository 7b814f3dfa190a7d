import CanteenTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The timer firing held tickets, across a restart")
struct FiringRestartTests {
    @Test("a ticket that came due while the server was down (SIGKILL) fires as soon as it is back")
    func fireAfterRestart() throws {
        // A grill of 8 s and a bar of 1 s: a toast-and-coffee order holds its coffee about 7 s.
        var cafe = allDayCafe(id: "firing")
        cafe["stations"] = [["id": "grill", "prepSeconds": 8], ["id": "bar", "prepSeconds": 1]]
        var items = cafe["items"] as? [[String: Any]] ?? []
        items.append([
            "id": "toast", "category": "coffee", "names": ["en": "Toast"], "descriptions": ["en": "Warm"],
            "price": 300, "station": "grill", "allergens": ["gluten"],
        ])
        cafe["items"] = items
        let data = temporaryFolder("firing")
        let menus = try menusFolder(cafe)
        defer {
            try? FileManager.default.removeItem(at: data)
            try? FileManager.default.removeItem(at: menus)
        }
        let kiosk = try CanteenProcess.run(["tokens", "create", "--role", "kiosk", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let kitchen = try CanteenProcess.run(["tokens", "create", "--role", "kitchen", "--data-dir", data.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var server = try ServerProcess(dataDirectory: data, menus: menus)
        let placed = try RawHTTP(port: server.port).exchange(
            "POST", "/v1/orders",
            headers: [
                ("Authorization", "Bearer \(kiosk)"), ("Content-Type", "application/json"),
                ("Idempotency-Key", "restart-1"),
            ],
            body:
                #"{"cafeId":"firing","customer":{"name":"Ada"},"lines":[{"itemId":"toast","quantity":1},{"itemId":"drip","quantity":1}]}"#
        )
        try #require(placed.status == 201, "\(placed.text)")
        let order = try #require(placed.json as? [String: Any])
        let tickets = try #require(order["tickets"] as? [[String: Any]])
        let held = try #require(tickets.first { $0["status"] as? String == "held" })
        let fireAt = try #require((held["fireAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })

        // The server dies at once; the ticket comes due while nothing runs.
        #expect(server.terminate(signal: SIGKILL))
        while Date() < fireAt.addingTimeInterval(1) { Thread.sleep(forTimeInterval: 0.1) }
        let restarted = Date()
        server = try ServerProcess(dataDirectory: data, menus: menus)

        // Back up, it fires the ticket by itself.
        let id = try #require(order["id"] as? String)
        let deadline = Date().addingTimeInterval(60)
        var fired: [String: Any]?
        while Date() < deadline, fired == nil {
            let read = try RawHTTP(port: server.port).exchange(
                "GET", "/v1/orders/\(id)",
                headers: [("Authorization", "Bearer \(kiosk)")])
            let now = (read.json as? [String: Any])?["tickets"] as? [[String: Any]] ?? []
            fired = now.first { $0["id"] as? String == held["id"] as? String && $0["status"] as? String == "new" }
            if fired == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(fired != nil, "the held ticket never fired after the restart:\n\(server.log)")
        // It fired once the server was back (it came due while it was down).
        let feed = try RawHTTP(port: server.port).exchange(
            "GET", "/v1/cafes/firing/tickets?station=bar",
            headers: [("Authorization", "Bearer \(kitchen)")])
        let bar = (feed.json as? [String: Any])?["tickets"] as? [[String: Any]] ?? []
        let firedAt = bar.first.flatMap { ($0["firedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } }
        #expect(
            firedAt.map { $0 >= restarted.addingTimeInterval(-1) && $0 >= fireAt.addingTimeInterval(-1) } == true,
            "fired at \(String(describing: firedAt)), restarted at \(restarted), due at \(fireAt)")
        server.terminate(signal: SIGTERM)
    }
}
