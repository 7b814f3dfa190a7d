import AsyncHTTPClient
import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenFormat
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

/// One Server-Sent Event, or a comment line.
struct ServerSentEvent: Equatable {
    var id: String?
    var event: String?
    var data: String?
    var comment: String?
}

/// Parses a `text/event-stream` body: events are separated by a blank line.
func serverSentEvents(_ text: String) -> [ServerSentEvent] {
    text.components(separatedBy: "\n\n").compactMap { block in
        guard !block.isEmpty else { return nil }
        var event = ServerSentEvent()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                event.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].drop { $0 == " " }
                switch line[..<colon] {
                case "id": event.id = String(value)
                case "event": event.event = String(value)
                case "data": event.data = String(value)
                default: break
                }
            }
        }
        return event
    }
}

/// Reads a live event stream one event (or comment) at a time.
struct EventStreamReader {
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""

    init(_ response: HTTPClientResponse) { iterator = response.body.makeAsyncIterator() }

    /// The next event or comment; nil when the server ended the stream.
    mutating func next() async throws -> ServerSentEvent? {
        while true {
            if let end = pending.range(of: "\n\n") {
                let block = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                if let event = serverSentEvents(block + "\n\n").first { return event }
                continue
            }
            guard let buffer = try await iterator.next() else { return nil }
            pending += String(buffer: buffer)
        }
    }

    /// The next event, skipping comments.
    mutating func nextEvent() async throws -> ServerSentEvent? {
        while let event = try await next() {
            if event.comment == nil { return event }
        }
        return nil
    }
}

@Suite("Following one order: long-poll and Server-Sent Events")
struct OrderFollowTests {
    func etag(_ response: TestResponse) throws -> String { try #require(response.headers[.eTag]) }

    // MARK: - Long-poll

    @Test("a read answers at once with the order's version as a weak ETag, and 304 to that ETag")
    func conditionalRead() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(saladOrder(), token: environment.kiosk)
            let first = try await client.send(.get, "/v1/orders/\(order.id)", token: environment.kiosk)
            #expect(first.status == .ok)
            let tag = try etag(first)
            #expect(tag.hasPrefix("W/\""))
            let again = try await client.send(
                .get, "/v1/orders/\(order.id)", token: environment.kiosk,
                headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.headers[.eTag] == tag)
        }
    }

    @Test("a long-poll with the current version answers as soon as the status changes")
    func longPollWakes() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(saladOrder(), token: environment.kiosk)
            let tag = try etag(try await client.send(.get, "/v1/orders/\(order.id)", token: environment.kiosk))
            let began = ContinuousClock.now
            async let answer = client.send(
                .get, "/v1/orders/\(order.id)?wait=25", token: environment.kiosk,
                headers: [.ifNoneMatch: tag])
            while environment.services.feed.orderFollowers == 0 { try await Task.sleep(for: .milliseconds(5)) }
            try await client.move(try #require(order.tickets["cold"]), to: "preparing", token: environment.kitchen)
            let woken = try await answer
            #expect(ContinuousClock.now - began < .seconds(20), "woken by the change, not the deadline")
            #expect(woken.status == .ok)
            #expect(try woken.json["status"] == "preparing")
            #expect(try etag(woken) != tag)
            #expect(environment.services.feed.orderFollowers == 0)
        }
    }

    @Test("a long-poll sees a change made before it started waiting, and answers 304 at its deadline otherwise")
    func longPollDeadline() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(orderBody(), token: environment.kiosk)
            let tag = try etag(try await client.send(.get, "/v1/orders/\(order.id)", token: environment.kiosk))
            try await client.move(try #require(order.tickets["bar"]), to: "preparing", token: environment.kitchen)
            let stale = try await client.send(
                .get, "/v1/orders/\(order.id)?wait=25", token: environment.kiosk,
                headers: [.ifNoneMatch: tag])
            #expect(stale.status == .ok)
            let current = try etag(stale)

            // The second ticket starting changes no status: the poll waits out its second.
            try await client.move(try #require(order.tickets["cold"]), to: "preparing", token: environment.kitchen)
            let unchanged = try await client.send(
                .get, "/v1/orders/\(order.id)?wait=1", token: environment.kiosk,
                headers: [.ifNoneMatch: current])
            #expect(unchanged.status == .notModified)
            #expect(unchanged.headers[.eTag] == current)

            let invalid = try await client.send(.get, "/v1/orders/\(order.id)?wait=31", token: environment.kiosk)
            #expect(invalid.status.code == 422)
            #expect(invalid.errorCode == "invalid_query")
            #expect(invalid.errorField == "wait")
        }
    }

    @Test("the kiosk token that placed an order, ops and its café's kitchen may follow it; no one else")
    func access() async throws {
        let environment = try await TestEnvironment.make()
        let tokens = environment.stores.tokens
        let ownKitchen = try await tokens.createToken(role: .kitchen, cafeID: "testcafe", name: nil).secret
        let otherKitchen = try await tokens.createToken(role: .kitchen, cafeID: "othercafe", name: nil).secret
        try await withRouter(environment) { client in
            let order = try await client.placed(saladOrder(), token: environment.kiosk)
            let cold = try #require(order.tickets["cold"])
            for status in ["preparing", "ready", "picked_up"] {
                try await client.move(cold, to: status, token: environment.kitchen)
            }
            let expectations: [(String?, HTTPResponse.Status)] = [
                (environment.kiosk, .ok), (environment.ops, .ok), (environment.kitchen, .ok), (ownKitchen, .ok),
                (environment.boundKiosk, .forbidden), (otherKitchen, .forbidden), (nil, .unauthorized),
                ("cnt_not-a-token", .unauthorized),
            ]
            for (token, status) in expectations {
                let read = try await client.send(.get, "/v1/orders/\(order.id)", token: token)
                #expect(read.status == status, "GET with \(token ?? "no token")")
                let stream = try await client.send(.get, "/v1/orders/\(order.id)/events", token: token)
                #expect(stream.status == status, "events with \(token ?? "no token")")
            }
            let missing = try await client.send(.get, "/v1/orders/ord_nothing/events", token: environment.ops)
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "order_not_found")
            #expect(environment.services.feed.orderFollowers == 0)
        }
    }

    // MARK: - Server-Sent Events

    @Test("the event stream replays an order's changes, one event each with increasing ids, and ends after pickup")
    func streamReplay() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(saladOrder(), token: environment.kiosk)
            let cold = try #require(order.tickets["cold"])
            for status in ["preparing", "ready", "picked_up"] {
                try await client.move(cold, to: status, token: environment.kitchen)
            }
            let stream = try await client.send(
                .get, "/v1/orders/\(order.id)/events", token: environment.kiosk,
                headers: [.acceptLanguage: "es"])
            #expect(stream.status == .ok)
            #expect(stream.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(stream.headers[.cacheControl] == "no-cache")
            let events = serverSentEvents(String(buffer: stream.body)).filter { $0.comment == nil }
            #expect(events.map(\.event) == ["order.placed", "order.preparing", "order.ready", "order.picked_up"])
            let ids = events.compactMap { $0.id.flatMap(Int64.init) }
            #expect(ids.count == 4 && ids == ids.sorted() && Set(ids).count == 4)
            let ready = try JSONValue.parse(Data(try #require(events[2].data).utf8))
            #expect(ready["type"] == "order.ready")
            #expect(ready["id"]?.stringValue?.hasPrefix("evt_") == true)
            #expect(ready["data", "id"] == .string(order.id))
            #expect(ready["data", "status"] == "ready")
            #expect(
                ready["data", "statusLabel"] == .string(TestEnvironment.strings.string("state.ready", language: "es")))
            #expect(ready["data", "tickets", 0, "status"] == "ready")

            // Reconnecting after the preparing event gets the rest, each once.
            let resumed = try await client.send(
                .get, "/v1/orders/\(order.id)/events", token: environment.kiosk,
                headers: [OrderEventHeaders.lastEventID: events[1].id!])
            #expect(
                serverSentEvents(String(buffer: resumed.body)).filter { $0.comment == nil }.map(\.id)
                    == [events[2].id, events[3].id])
            // Nothing left of a finished order: 204 tells an EventSource to stop reconnecting.
            let done = try await client.send(
                .get, "/v1/orders/\(order.id)/events", token: environment.kiosk,
                headers: [OrderEventHeaders.lastEventID: events[3].id!])
            #expect(done.status == .noContent)
            let bad = try await client.send(
                .get, "/v1/orders/\(order.id)/events", token: environment.kiosk,
                headers: [OrderEventHeaders.lastEventID: "yesterday"])
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_cursor")
            #expect(bad.errorField == "Last-Event-ID")
        }
    }

    @Test(
        "a live stream sends each change as it happens and heartbeats while idle; a reconnect with Last-Event-ID misses nothing"
    )
    func liveStream() async throws {
        let environment = try await TestEnvironment.make()
        let services = environment.stores.apiServices(
            strings: TestEnvironment.strings, heartbeat: .milliseconds(200),
            clock: environment.clock.closure)
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let order = try await client.placed(saladOrder(), token: environment.kiosk)
            let cold = try #require(order.tickets["cold"])
            let url = "http://127.0.0.1:\(port)/v1/orders/\(order.id)/events"

            func connect(lastEventID: String?) async throws -> (HTTPClient, EventStreamReader) {
                let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Authorization", value: "Bearer \(environment.kiosk)")
                if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
                let response = try await http.execute(request, timeout: .seconds(30))
                #expect(response.status == .ok)
                #expect(response.headers.first(name: "Content-Type") == "text/event-stream; charset=utf-8")
                return (http, EventStreamReader(response))
            }

            var (http, reader) = try await connect(lastEventID: nil)
            let placed = try #require(try await reader.nextEvent())
            #expect(placed.event == "order.placed")
            var heartbeat: ServerSentEvent?
            while heartbeat == nil, let next = try await reader.next() {
                if next.comment == "heartbeat" { heartbeat = next }
            }
            #expect(heartbeat != nil, "a comment while nothing happens")

            try await client.move(cold, to: "preparing", token: environment.kitchen)
            let preparing = try #require(try await reader.nextEvent())
            #expect(preparing.event == "order.preparing")
            #expect(Int64(preparing.id ?? "") ?? 0 > Int64(placed.id ?? "") ?? .max)
            try await http.shutdown()  // the client goes away

            try await client.move(cold, to: "ready", token: environment.kitchen)
            (http, reader) = try await connect(lastEventID: preparing.id)
            let ready = try #require(try await reader.nextEvent())
            #expect(ready.event == "order.ready", "the change made while disconnected, once")
            try await client.move(cold, to: "picked_up", token: environment.kitchen)
            let pickedUp = try #require(try await reader.nextEvent())
            #expect(pickedUp.event == "order.picked_up")
            #expect(try await reader.nextEvent() == nil, "the stream ends after pickup")
            try await http.shutdown()

            let deadline = ContinuousClock.now + .seconds(10)
            while services.feed.orderFollowers > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(services.feed.orderFollowers == 0, "followers end with their streams")
        }
    }
}

extension OrderFollowTests {
    @Test(
        "a server shutting down ends open event streams and parked long-polls rather than waiting for them",
        .timeLimit(.minutes(1)))
    func shutdownEndsFollowers() async throws {
        let environment = try await TestEnvironment.make()
        let bound = Mutex<Int?>(nil)
        var logger = Logger(label: "follow-shutdown")
        logger.logLevel = .error
        let app = Application(
            router: CanteenRouter.build(environment.services).router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in bound.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await eventually(within: .seconds(10)) { bound.withLock { $0 } != nil })
            let base = "http://127.0.0.1:\(try #require(bound.withLock { $0 }))/v1/orders"
            let order = try await withRouter(environment) { client in
                try await client.placed(saladOrder(), token: environment.kiosk)
            }
            func request(_ path: String, _ headers: [(String, String)] = []) -> HTTPClientRequest {
                var request = HTTPClientRequest(url: base + path)
                request.headers.add(name: "Authorization", value: "Bearer \(environment.kiosk)")
                for (name, value) in headers { request.headers.add(name: name, value: value) }
                return request
            }
            let read = try await http.execute(request("/\(order.id)"), timeout: .seconds(30))
            let etag = try #require(read.headers.first(name: "ETag"))
            _ = try await read.body.collect(upTo: 1 << 20)
            let stream = try await http.execute(request("/\(order.id)/events"), timeout: .seconds(60))
            var reader = EventStreamReader(stream)
            #expect(try await reader.nextEvent()?.event == "order.placed")
            tasks.addTask {
                let poll = try await http.execute(
                    request("/\(order.id)?wait=30", [("If-None-Match", etag)]), timeout: .seconds(60))
                #expect(poll.status == .notModified)
            }
            #expect(try await eventually(within: .seconds(10)) { environment.services.feed.orderFollowers == 2 })
            let began = ContinuousClock.now
            await group.triggerGracefulShutdown()
            while try await reader.next() != nil {}
            try await tasks.waitForAll()
            #expect(ContinuousClock.now - began < .seconds(20), "not held by the 30 s long-poll or the open stream")
        }
        try await http.shutdown()
    }
}

enum OrderEventHeaders {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
