import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The kitchen ticket feed")
struct TicketFeedTests {
    func tickets(_ response: TestResponse) throws -> [JSONValue] {
        guard case .array(let list)? = try response.json["tickets"] else { return [] }
        return list
    }

    @Test("an order makes one ticket per station carrying lines, notes, number, name and window")
    func ticketsPerStation() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            #expect(feed.status == .ok)
            let list = try tickets(feed)
            #expect(list.map { $0["station"] } == ["bar", "cold"])
            let cold = list[1]
            #expect(cold["orderNumber"] == 1)
            #expect(cold["customerName"] == "Ada")
            #expect(cold["status"] == "new")
            #expect(cold["lines", 0, "itemId"] == "salad")
            #expect(cold["lines", 0, "note"] == "dressing on the side")
            #expect(cold["pickup", "start"] == "2026-11-23T09:15:00-06:00")
            #expect(list[0]["lines", 0, "options"] == ["Large", "Shot"])
            let bar = try await client.send(.get, "/v1/cafes/testcafe/tickets?station=bar", token: environment.kitchen)
            #expect(try tickets(bar).map { $0["station"] } == ["bar"])
        }
    }

    @Test("a display far behind pages through the feed, 500 tickets at a time, missing none")
    func paging() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for number in 0..<251 {  // two stations each: 502 tickets
                let placed = try await client.placeOrder(orderBody(name: "Guest \(number)"), token: environment.kiosk)
                try #require(placed.status == .created)
            }
            var seen: [String] = []
            var query = ""
            var pages: [Int] = []
            for _ in 0..<4 {
                let page = try await client.send(.get, "/v1/cafes/testcafe/tickets\(query)", token: environment.kitchen)
                let list = try tickets(page)
                pages.append(list.count)
                seen += list.compactMap { $0["id"]?.stringValue }
                let cursor = try #require(try page.json["cursor"]?.stringValue)
                query = "?after=\(cursor)"
                if list.isEmpty { break }
            }
            #expect(pages == [500, 2, 0])
            #expect(seen.count == 502)
            #expect(Set(seen).count == 502)
        }
    }

    @Test("after the cursor only changed tickets come; with no change the ETag gives 304")
    func cursor() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let first = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let cursor = try #require(try first.json["cursor"]?.stringValue)
            let etag = try #require(first.headers[.eTag])
            #expect(etag == "\"\(cursor)\"")
            // Without a cursor, the ETag just given answers 304 while nothing changed (issue 11, defect 2).
            let unchanged = try await client.send(
                .get, "/v1/cafes/testcafe/tickets", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(unchanged.status == .notModified)
            #expect(unchanged.body.readableBytes == 0)
            let idle = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)", token: environment.kitchen)
            #expect(try tickets(idle).isEmpty)
            #expect(try idle.json["cursor"] == .string(cursor))
            let notModified = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            let ticketID = try #require(try tickets(first)[0]["id"]?.stringValue)
            _ = try await client.send(
                .post, "/v1/tickets/\(ticketID)/status", token: environment.kitchen, json: ["status": "preparing"])
            let changed = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(try tickets(changed).map { $0["id"] } == [.string(ticketID)])
            #expect(try tickets(changed)[0]["status"] == "preparing")
            let next = try #require(Int(try changed.json["cursor"]?.stringValue ?? ""))
            #expect(next > Int(cursor)!)
        }
    }

    @Test(
        "one page shared by displays of two languages: each answer carries its own language, the page's ETag and JSON type"
    )
    func sharedPageHeaders() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            var answers: [String: TestResponse] = [:]
            for language in ["fr", "en", "fr"] {
                answers[language] = try await client.send(
                    .get, "/v1/cafes/testcafe/tickets", token: environment.kitchen,
                    headers: [.acceptLanguage: language])
            }
            let french = try #require(answers["fr"]), english = try #require(answers["en"])
            #expect(french.headers[.contentLanguage]?.hasPrefix("fr") == true, "\(french.headers)")
            #expect(english.headers[.contentLanguage]?.hasPrefix("en") == true, "\(english.headers)")
            for answer in [french, english] {
                #expect(answer.status == .ok)
                #expect(answer.headers[.vary] == "Accept-Language")
                #expect(answer.headers[.contentType] == "application/json; charset=utf-8")
                #expect(answer.headers[.cacheControl] == "no-cache")
                #expect(answer.headers[.eTag] == "\"\(try #require(try answer.json["cursor"]?.stringValue))\"")
                #expect(answer.headers[values: RequestLog.header].count == 1)
                // The page carries its length: once, and the body's.
                #expect(answer.headers[values: .contentLength] == [String(answer.body.readableBytes)])
            }
        }
    }

    @Test("a display long-polling while an order is placed receives it before its deadline")
    func longPoll() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { sharedClient in
            let client = sharedClient
            let start = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let cursor = try #require(try start.json["cursor"]?.stringValue)
            try await withThrowingTaskGroup(of: TestResponse.self) { group in
                group.addTask {
                    try await client.send(
                        .get, "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=30", token: environment.kitchen)
                }
                // Wait until the display is parked, then place the order.
                while environment.services.feed.waitingDisplays == 0 {
                    try await Task.sleep(for: .milliseconds(5))
                }
                let began = ContinuousClock.now
                _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
                let response = try #require(try await group.next())
                #expect(response.status == .ok)
                #expect(try tickets(response).count == 2)
                // Well before the 30 s deadline: the change woke the display.
                #expect(ContinuousClock.now - began < .seconds(20))
            }
        }
    }

    @Test(
        "parked displays of one station sleep through another station's order, then each wakes with its own station's ticket in its own language"
    )
    func parkedStations() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { sharedClient in
            let client = sharedClient
            let start = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let cursor = try #require(try start.json["cursor"]?.stringValue)
            let displays: [(station: String, language: String)] = [
                ("bar", "fr"), ("bar", "en"), ("bar", "fr"), ("cold", "en"),
            ]
            try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
                for (index, display) in displays.enumerated() {
                    group.addTask {
                        (
                            index,
                            try await client.send(
                                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)&station=\(display.station)&wait=30",
                                token: environment.kitchen, headers: [.acceptLanguage: display.language])
                        )
                    }
                }
                while environment.services.feed.waitingDisplays < displays.count {
                    try await Task.sleep(for: .milliseconds(5))
                }
                // A salad only: the cold display answers, the bar displays go back to waiting.
                let salad = try await client.placeOrder(
                    orderBody(lines: [["itemId": "salad", "quantity": 1]], name: "Cy"),
                    token: environment.kiosk)
                #expect(salad.status == .created)
                let (coldIndex, cold) = try #require(try await group.next())
                #expect(coldIndex == 3)
                #expect(try tickets(cold).map { $0["station"] } == ["cold"])
                while environment.services.feed.waitingDisplays < 3 {
                    try await Task.sleep(for: .milliseconds(5))
                }
                let latte = try await client.placeOrder(
                    orderBody(
                        lines: [["itemId": "latte", "quantity": 1, "options": ["small"]]],
                        name: "Bo"),
                    token: environment.kiosk)
                #expect(latte.status == .created)
                var bar: [Int: TestResponse] = [:]
                for _ in 0..<3 {
                    let (index, answer) = try #require(try await group.next())
                    bar[index] = answer
                }
                #expect(bar.keys.sorted() == [0, 1, 2])
                for (index, answer) in bar {
                    #expect(answer.status == .ok)
                    #expect(
                        try tickets(answer).map { $0["station"] } == ["bar"], "display \(index) gets the latte only")
                    #expect(try tickets(answer).map { $0["customerName"] } == ["Bo"])
                    #expect(
                        answer.headers[.contentLanguage]?.hasPrefix(displays[index].language) == true,
                        "display \(index): \(answer.headers)")
                }
                // The two French displays asked the same question: the same answer, to the byte.
                #expect(bar[0]?.body == bar[2]?.body)
                #expect(bar[0]?.headers[.eTag] == bar[1]?.headers[.eTag])
            }
        }
    }

    @Test("a long-poll with no change answers empty at its deadline")
    func longPollTimeout() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let start = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let cursor = try #require(try start.json["cursor"]?.stringValue)
            let response = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=1", token: environment.kitchen,
                headers: [.acceptLanguage: "fr"])
            #expect(response.status == .ok)
            #expect(try tickets(response).isEmpty)
            // The empty page is a whole answer: its cursor, ETag, type and the reader's language.
            #expect(try response.json["cursor"]?.stringValue == cursor)
            #expect(response.headers[.eTag] == "\"\(cursor)\"")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(response.headers[.contentLanguage]?.hasPrefix("fr") == true, "\(response.headers)")
            #expect(response.headers[values: .contentLength] == [String(response.body.readableBytes)])
        }
    }

    @Test("every valid ticket move succeeds and every invalid one is 409 naming the current state")
    func moves() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            func newTicket() async throws -> String {
                let order = try await client.placeOrder(
                    orderBody(lines: [["itemId": "salad", "quantity": 1]]), token: environment.kiosk)
                return try #require(try order.json["tickets", 0, "id"]?.stringValue)
            }
            func move(_ id: String, _ status: String) async throws -> TestResponse {
                try await client.send(
                    .post, "/v1/tickets/\(id)/status", token: environment.kitchen, json: ["status": .string(status)])
            }
            let paths: [[String]] = [
                ["preparing", "ready", "picked_up"],
                ["preparing", "ready", "preparing", "ready", "picked_up"],
                ["preparing", "new", "preparing", "ready", "picked_up", "ready", "picked_up"],
                ["cancelled"], ["preparing", "cancelled"], ["preparing", "ready", "cancelled"],
            ]
            for path in paths {
                let id = try await newTicket()
                for status in path {
                    let response = try await move(id, status)
                    #expect(response.status == .ok, "\(path) at \(status)")
                    #expect(try response.json["status"] == .string(status))
                }
            }
            let invalid: [([String], String, String)] = [
                ([], "ready", "new"), ([], "picked_up", "new"), ([], "new", "new"),
                (["preparing"], "picked_up", "preparing"), (["preparing", "ready"], "new", "ready"),
                (["preparing", "ready", "picked_up"], "preparing", "picked_up"),
                (["preparing", "ready", "picked_up"], "cancelled", "picked_up"),
                (["cancelled"], "preparing", "cancelled"),
            ]
            for (before, status, current) in invalid {
                let id = try await newTicket()
                for step in before { _ = try await move(id, step) }
                let response = try await move(id, status)
                #expect(response.status == .conflict, "\(before) → \(status)")
                #expect(response.errorCode == "invalid_transition")
                #expect(try response.json["error", "message"]?.stringValue?.contains(current) == true)
            }
            let unknown = try await move(try await newTicket(), "eaten")
            #expect(unknown.status == .unprocessableContent)
            let missing = try await move("tkt_nope", "ready")
            #expect(missing.status == .notFound)
        }
    }

    @Test(
        "kiosks read the feed (the pickup board) but cannot move tickets; kitchens of another café get 403; bad queries 4xx"
    )
    func access() async throws {
        let environment = try await TestEnvironment.make()
        let otherKitchen = try await environment.stores.tokens.createToken(
            role: .kitchen, cafeID: "othercafe", name: nil
        ).secret
        try await withRouter(environment) { client in
            let order = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let ticket = try #require(try order.json["tickets", 0, "id"]?.stringValue)
            #expect(try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kiosk).status == .ok)
            #expect(try await client.send(.get, "/v1/cafes/testcafe/tickets", token: otherKitchen).status == .forbidden)
            let foreign = try await client.send(
                .post, "/v1/tickets/\(ticket)/status", token: otherKitchen, json: ["status": "preparing"])
            #expect(foreign.status == .forbidden)
            let kiosk = try await client.send(
                .post, "/v1/tickets/\(ticket)/status", token: environment.kiosk, json: ["status": "preparing"])
            #expect(kiosk.status == .forbidden)
            let badCursor = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=abc", token: environment.kitchen)
            #expect(badCursor.status == .badRequest)
            #expect(badCursor.errorCode == "invalid_cursor")
            let badWait = try await client.send(.get, "/v1/cafes/testcafe/tickets?wait=31", token: environment.kitchen)
            #expect(badWait.status == .unprocessableContent)
            #expect(badWait.errorField == "wait")
        }
    }

    @Test("after a restart, orders, tickets and the cursor are still there and new changes come after it")
    func restart() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let (orderID, cursor) = try await withRouter(environment) { client in
            let order = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            return (try #require(try order.json["id"]?.stringValue), try #require(try feed.json["cursor"]?.stringValue))
        }
        try environment.stores.sqliteDatabase!.close()

        let reopened = try CanteenStores.open(dataDirectory: directory, clock: environment.clock.closure)
        let services = reopened.apiServices(strings: TestEnvironment.strings, clock: environment.clock.closure)
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.router) { client in
            let order = try await client.send(.get, "/v1/orders/\(orderID)", token: environment.kiosk)
            #expect(order.status == .ok)
            #expect(try order.json["number"] == 1)
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            #expect(try tickets(feed).count == 2)
            #expect(try feed.json["cursor"] == .string(cursor))
            let idle = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)", token: environment.kitchen)
            #expect(try tickets(idle).isEmpty)
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let next = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?after=\(cursor)", token: environment.kitchen)
            #expect(try tickets(next).count == 2)
            #expect(
                try tickets(next).allSatisfy {
                    ($0["sequence"].flatMap { if case .int(let v) = $0 { v } else { nil } } ?? 0) > Int64(cursor)!
                })
            #expect(try tickets(next)[0]["orderNumber"] == 2)
        }
    }
}
