import AsyncHTTPClient
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import Testing

@testable import CanteenAPI

/// One open ticket event stream on a live server, read event by event.
struct TicketStream {
    let http: HTTPClient
    let response: HTTPClientResponse
    var reader: EventStreamReader

    /// Opens `path` on 127.0.0.1:`port` with `headers`.
    static func open(port: Int, _ path: String, headers: [(String, String)]) async throws -> TicketStream {
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        do {
            let response = try await http.execute(request, timeout: .seconds(60))
            return TicketStream(http: http, response: response, reader: EventStreamReader(response))
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// The next `snapshot` or `changes` event (skipping `retry:` and comments); nil when the stream ended.
    mutating func nextEvent() async throws -> TicketEvent? {
        while let event = try await reader.next() {
            guard let name = event.event else { continue }
            return try TicketEvent(name: name, id: event.id, data: event.data)
        }
        return nil
    }

    /// The next comment, skipping nothing else: an event before it fails the test.
    mutating func nextComment() async throws -> String? {
        while let event = try await reader.next() {
            if let comment = event.comment { return comment }
            if event.event != nil { Issue.record("an event where a comment was expected: \(event)") }
        }
        return nil
    }

    func close() async throws { try await http.shutdown() }
}

/// A ticket event: its name, id (the feed cursor) and tickets.
struct TicketEvent {
    let name: String
    let id: Int64
    let tickets: [JSONValue]
    /// The tickets' ids in order.
    var ticketIDs: [String] { tickets.compactMap { $0["id"]?.stringValue } }
    /// The tickets' stations in order.
    var stations: [String] { tickets.compactMap { $0["station"]?.stringValue } }

    init(name: String, id: String?, data: String?) throws {
        self.name = name
        self.id = try #require(id.flatMap { Int64($0) }, "an event without a numeric id")
        let json = try JSONValue.parse(Data(try #require(data, "an event without data").utf8))
        guard case .array(let tickets)? = json["tickets"] else { throw TestFailure("no tickets in \(json)") }
        #expect(json["cursor"]?.stringValue == String(self.id), "the id is the page's cursor")
        self.tickets = tickets
    }
}

@Suite("Kitchen displays on the ticket event stream")
struct TicketEventStreamTests {
    static let path = "/v1/cafes/testcafe/tickets/events"

    /// A live server over `environment`'s stores whose streams comment after `heartbeat`.
    func withServer(
        _ environment: TestEnvironment, heartbeat: Duration = .milliseconds(300),
        _ body: @Sendable (_ port: Int, _ client: any TestClientProtocol, _ services: APIServices) async throws -> Void
    )
        async throws
    {
        let services = environment.stores.apiServices(
            strings: TestEnvironment.strings, heartbeat: heartbeat,
            clock: environment.clock.closure)
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.live) { client in try await body(try #require(client.port), client, services) }
    }

    func kitchen(_ environment: TestEnvironment) -> [(String, String)] {
        [("Authorization", "Bearer \(environment.kitchen)")]
    }

    @Test(
        "a new stream starts with the open tickets as a snapshot, then sends each change once, its id the feed cursor")
    func snapshotThenChanges() async throws {
        let environment = try await TestEnvironment.make()
        try await withServer(environment) { port, client, _ in
            let first = try await client.placed(orderBody(), token: environment.kiosk)
            var stream = try await TicketStream.open(port: port, Self.path, headers: kitchen(environment))
            #expect(stream.response.status == .ok)
            #expect(stream.response.headers.first(name: "Content-Type") == "text/event-stream; charset=utf-8")
            #expect(stream.response.headers.first(name: "Cache-Control") == "no-cache")

            let snapshot = try #require(try await stream.nextEvent())
            #expect(snapshot.name == "snapshot")
            #expect(Set(snapshot.ticketIDs) == Set(first.tickets.values))
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            #expect(try feed.json["cursor"]?.stringValue == String(snapshot.id))

            let second = try await client.placed(saladOrder(name: "Grace"), token: environment.kiosk)
            let placed = try #require(try await stream.nextEvent())
            #expect(placed.name == "changes")
            #expect(placed.ticketIDs == [second.tickets["cold"] ?? "-"])
            #expect(placed.id > snapshot.id)

            try await client.move(try #require(first.tickets["bar"]), to: "preparing", token: environment.kitchen)
            let moved = try #require(try await stream.nextEvent())
            #expect(moved.name == "changes")
            #expect(moved.ticketIDs == [first.tickets["bar"] ?? "-"], "only the moved ticket, once")
            #expect(moved.tickets.first?["status"] == "preparing")
            #expect(moved.id > placed.id)
            try await stream.close()
        }
    }

    @Test(
        "a stream resumed with Last-Event-ID sends what changed after it, nothing before, and a first event even when nothing did"
    )
    func resumes() async throws {
        let environment = try await TestEnvironment.make()
        try await withServer(environment) { port, client, _ in
            _ = try await client.placed(orderBody(), token: environment.kiosk)
            var stream = try await TicketStream.open(port: port, Self.path, headers: kitchen(environment))
            let snapshot = try #require(try await stream.nextEvent())
            try await stream.close()

            // Nothing changed: the first event says so (no ticket), with the cursor it stands at.
            stream = try await TicketStream.open(
                port: port, Self.path,
                headers: kitchen(environment) + [("Last-Event-ID", String(snapshot.id))])
            let caughtUp = try #require(try await stream.nextEvent())
            #expect(caughtUp.name == "changes")
            #expect(caughtUp.tickets.isEmpty)
            #expect(caughtUp.id == snapshot.id)
            try await stream.close()

            // Changed while away: exactly those changes.
            let meanwhile = try await client.placed(saladOrder(name: "Meanwhile"), token: environment.kiosk)
            stream = try await TicketStream.open(
                port: port, Self.path,
                headers: kitchen(environment) + [("Last-Event-ID", String(snapshot.id))])
            let missed = try #require(try await stream.nextEvent())
            #expect(missed.name == "changes")
            #expect(missed.ticketIDs == [meanwhile.tickets["cold"] ?? "-"])
            let later = try await client.placed(saladOrder(name: "Later"), token: environment.kiosk)
            #expect(try await stream.nextEvent()?.ticketIDs == [later.tickets["cold"] ?? "-"])
            try await stream.close()

            // A new EventSource says where it stands with ?after=; the browser's reconnection sends
            // Last-Event-ID on the same address, and the header wins.
            stream = try await TicketStream.open(
                port: port, Self.path + "?after=\(snapshot.id)",
                headers: kitchen(environment) + [("Last-Event-ID", String(missed.id))])
            #expect(try await stream.nextEvent()?.ticketIDs == [later.tickets["cold"] ?? "-"])
            try await stream.close()
            stream = try await TicketStream.open(
                port: port, Self.path + "?after=\(missed.id)", headers: kitchen(environment))
            #expect(try await stream.nextEvent()?.ticketIDs == [later.tickets["cold"] ?? "-"])
            try await stream.close()
        }
    }

    @Test("a station's stream carries that station's tickets only, and nothing for other stations' changes")
    func station() async throws {
        let environment = try await TestEnvironment.make()
        try await withServer(environment) { port, client, _ in
            var cold = try await TicketStream.open(
                port: port, Self.path + "?station=cold", headers: kitchen(environment))
            #expect(try await cold.nextEvent()?.name == "snapshot")
            let both = try await client.placed(orderBody(), token: environment.kiosk)
            #expect(try await cold.nextEvent()?.ticketIDs == [both.tickets["cold"] ?? "-"])
            // A latte concerns the bar only: the cold stream stays quiet (a comment comes first).
            let latte = orderBody(lines: [["itemId": "latte", "quantity": 1, "options": ["small"]]])
            _ = try await client.placed(latte, token: environment.kiosk)
            #expect(try await cold.nextComment() != nil)
            let salad = try await client.placed(saladOrder(name: "Grace"), token: environment.kiosk)
            let next = try #require(try await cold.nextEvent())
            #expect(next.ticketIDs == [salad.tickets["cold"] ?? "-"])
            #expect(next.stations == ["cold"])
            try await cold.close()
        }
    }

    @Test(
        "a quiet stream gets a comment every heartbeat; a stream whose token is revoked ends at the next one",
        .timeLimit(.minutes(1)))
    func heartbeatAndRevocation() async throws {
        let environment = try await TestEnvironment.make()
        let (token, secret) = try await environment.stores.tokens.createToken(
            role: .kitchen, cafeID: "testcafe", name: nil)
        try await withServer(environment, heartbeat: .milliseconds(200)) { port, _, _ in
            var stream = try await TicketStream.open(
                port: port, Self.path, headers: [("Authorization", "Bearer \(secret)")])
            #expect(try await stream.nextEvent()?.name == "snapshot")
            #expect(try await stream.nextComment() != nil)
            #expect(try await stream.nextComment() != nil)
            try await environment.stores.tokens.revokeToken(id: token.id)
            let began = ContinuousClock.now
            while try await stream.reader.next() != nil {}
            #expect(ContinuousClock.now - began < .seconds(20), "the stream ended by itself")
            try await stream.close()
        }
    }

    @Test(
        "streams woken by one change that ask the same question are given one rendered page; another language gets its own"
    )
    func oneRenderedPage() async throws {
        let environment = try await TestEnvironment.make()
        let feed = environment.services.feed
        let cafe = try #require(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe)
        let english = environment.services.presenter.presentation(acceptLanguage: "en", cafe: cafe)
        let french = environment.services.presenter.presentation(acceptLanguage: "fr", cafe: cafe)
        let cursor = try await feed.latest(cafeID: "testcafe")
        let waits = [english, english, english, french].map { presentation in
            Task {
                try await feed.nextStreamStep(
                    TicketEventStream(
                        feed: feed, cafe: cafe, station: nil, presentation: presentation, cursor: cursor,
                        heartbeat: .seconds(60), tokenIsLive: { true }),
                    after: cursor, wait: true, until: .now + .seconds(60))
            }
        }
        #expect(try await eventually(within: .seconds(20)) { feed.streamSignal.waiterCount == 4 })
        try await withRouter(environment) { client in _ = try await client.placed(orderBody(), token: environment.kiosk)
        }
        var storage: [UInt?] = []
        for wait in waits {
            guard case .page(let page) = try await wait.value else {
                Issue.record("a waiting stream was not given a page")
                continue
            }
            #expect(String(buffer: page.body).hasPrefix("id: \(page.cursor)\nevent: changes\ndata: {"))
            storage.append(page.body.withUnsafeReadableBytes { $0.baseAddress.map { UInt(bitPattern: $0) } })
        }
        #expect(storage.count == 4)
        #expect(Set(storage.prefix(3)).count == 1, "the three English streams share one buffer")
        #expect(storage.last != storage.first, "the French stream has its own page")
    }

    @Test("open streams are counted in canteen_feed_streams, apart from the long-polls of canteen_feed_waiters")
    func counted() async throws {
        let environment = try await TestEnvironment.make()
        try await withServer(environment) { port, client, services in
            func metrics() async throws -> String {
                String(buffer: try await client.send(.get, "/metrics", token: environment.ops).body)
            }
            var first = try await TicketStream.open(port: port, Self.path, headers: kitchen(environment))
            var second = try await TicketStream.open(
                port: port, Self.path + "?station=bar", headers: kitchen(environment))
            _ = try await first.nextEvent()
            _ = try await second.nextEvent()
            #expect(services.feed.openStreams == 2)
            let text = try await metrics()
            #expect(text.contains("canteen_feed_streams 2"), "\(text.prefix(1500))")
            #expect(text.contains("canteen_feed_waiters 0"))
            try await first.close()
            try await second.close()
            // A stream that lost its client ends at its next write (a heartbeat at the latest).
            #expect(try await eventually(within: .seconds(20)) { services.feed.openStreams == 0 })
        }
    }
}

extension TicketEventStreamTests {
    @Test("a server shutting down ends its ticket event streams promptly", .timeLimit(.minutes(2)))
    func shutdownEndsStreams() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, menusDirectory: nil,
            localesDirectory: Fixtures.repositoryRoot.appendingPathComponent("Locales"),
            logLevel: .error, eventStreamHeartbeat: .seconds(90))
        // `canteen serve`'s own application, with a 90 s heartbeat: a stream that ended at a heartbeat
        // is told apart from one that ended with the server even on a slow, busy machine.
        let app = try await buildApplication(configuration, clock: environment.clock.closure)
        let reading = Mutex<Task<ContinuousClock.Instant, any Error>?>(nil)
        let began = Mutex(ContinuousClock.now)
        try await app.test(.live) { client in
            var stream = try await TicketStream.open(
                port: try #require(client.port), Self.path,
                headers: kitchen(environment))
            #expect(try await stream.nextEvent()?.name == "snapshot")
            let task = Task {
                while try await stream.reader.next() != nil {}
                try await stream.close()
                return ContinuousClock.now
            }
            reading.withLock { $0 = task }
            began.withLock { $0 = .now }
        }  // the test framework shuts the server down gracefully here
        let ended = try await try #require(reading.withLock { $0 }).value
        #expect(ended - began.withLock { $0 } < .seconds(45), "the stream ended with the server, not at a heartbeat")
    }
}

extension TicketEventStreamTests {
    @Test(
        "a stream on one process wakes for tickets another writes to the same data dir, and resumes on that other process with nothing skipped or repeated"
    )
    func acrossProcesses() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let otherStores = try CanteenStores.open(dataDirectory: directory, clock: environment.clock.closure)
        let services = [environment.stores, otherStores].map {
            $0.apiServices(
                strings: TestEnvironment.strings, heartbeat: .milliseconds(300), clock: environment.clock.closure)
        }
        // Each process watches the database for the other's changes, as `canteen serve` does.
        let watchers = services.map { services in Task { try await services.feed.run() } }
        defer { for watcher in watchers { watcher.cancel() } }
        let apps = services.map { Application(router: CanteenRouter.build($0).router) }
        let ordersEach = 4
        try await apps[0].test(.live) { one in
            try await apps[1].test(.live) { two in
                var seen: [String] = []
                var stream = try await TicketStream.open(
                    port: try #require(one.port), Self.path, headers: kitchen(environment))
                var last = try #require(try await stream.nextEvent())
                seen += last.ticketIDs
                // Given orders placed through the other process
                for number in 0..<ordersEach {
                    _ = try await two.placed(orderBody(name: "Other \(number)"), token: environment.kiosk)
                }
                // Then this process's stream has each of their tickets
                while seen.count < ordersEach * 2, let event = try await stream.nextEvent() {
                    seen += event.ticketIDs
                    last = event
                }
                try await stream.close()
                // When orders are placed here while the display moves to the other process
                for number in 0..<ordersEach {
                    _ = try await one.placed(orderBody(name: "Here \(number)"), token: environment.kiosk)
                }
                stream = try await TicketStream.open(
                    port: try #require(two.port), Self.path,
                    headers: kitchen(environment) + [("Last-Event-ID", String(last.id))])
                while seen.count < ordersEach * 4, let event = try await stream.nextEvent() { seen += event.ticketIDs }
                try await stream.close()
                // Then it has seen every ticket once
                let all = try await environment.stores.tickets.ticketChanges(
                    cafeID: "testcafe", after: 0, station: nil,
                    limit: 100)
                #expect(seen.count == ordersEach * 4)
                #expect(Set(seen).count == seen.count, "no ticket twice")
                #expect(Set(seen) == Set(all.tickets.map(\.ticket.id)), "no ticket missed")
            }
        }
    }
}
