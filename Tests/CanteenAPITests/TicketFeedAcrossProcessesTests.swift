import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The feed's conditional answers, and a second writer on the same database (another server
/// process, the command line): its own connection pool, unknown to this process's stores.
@Suite("The kitchen feed with conditional requests and a second writer")
struct TicketFeedAcrossProcessesTests {
    func tickets(_ response: TestResponse) throws -> [JSONValue] {
        guard case .array(let list)? = try response.json["tickets"] else { return [] }
        return list
    }

    @Test("the open tickets answer 304 to the ETag they gave while nothing changed, 200 once something did")
    func openTicketsRevalidate() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let first = try await client.send(.get, "/v1/cafes/testcafe/tickets", token: environment.kitchen)
            let etag = try #require(first.headers[.eTag])
            let again = try await client.send(
                .get, "/v1/cafes/testcafe/tickets", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.headers[.eTag] == etag)
            #expect(again.body.readableBytes == 0)
            let station = try await client.send(
                .get, "/v1/cafes/testcafe/tickets?station=bar", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(station.status == .notModified)

            _ = try await client.placeOrder(orderBody(name: "Grace"), token: environment.kiosk)
            let changed = try await client.send(
                .get, "/v1/cafes/testcafe/tickets", token: environment.kitchen,
                headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(try tickets(changed).count == 4)
            #expect(changed.headers[.eTag] != etag)
        }
    }

    @Test(
        "a display on one store sees every ticket two writers on the same data dir place, each once, and wakes for the other's"
    )
    func secondWriter() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TestEnvironment.make(dataDirectory: directory)
        let secondStores = try CanteenStores.open(dataDirectory: directory, clock: first.clock.closure)
        let secondServices = secondStores.apiServices(strings: TestEnvironment.strings, clock: first.clock.closure)
        let watcher = Task { try await first.services.feed.run() }
        defer { watcher.cancel() }

        let firstApp = Application(router: CanteenRouter.build(first.services).router)
        let secondApp = Application(router: CanteenRouter.build(secondServices).router)
        let ordersEach = 25
        try await firstApp.test(.router) { display in
            try await secondApp.test(.router) { other in
                let start = try await display.send(.get, "/v1/cafes/testcafe/tickets", token: first.kitchen)
                var cursor = try #require(try start.json["cursor"]?.stringValue)

                // A display parked on the first store wakes for an order placed through the second.
                let parkedURI = "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=25"
                async let parked = display.send(.get, parkedURI, token: first.kitchen)
                while first.services.feed.waitingDisplays == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let began = ContinuousClock.now
                #expect(try await other.placeOrder(orderBody(name: "Other 0"), token: first.kiosk).status == .created)
                let woken = try await parked
                #expect(ContinuousClock.now - began < .seconds(20), "woke by the watcher, not the deadline")
                var seen = try tickets(woken).compactMap { $0["id"]?.stringValue }
                #expect(seen.count == 2)
                cursor = try #require(try woken.json["cursor"]?.stringValue)

                // Both write at once while the display follows the feed with its cursor.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (client, name) in [(display, "First"), (other, "Other")] {
                        group.addTask {
                            for number in 1...ordersEach {
                                let placed = try await client.placeOrder(
                                    orderBody(name: "\(name) \(number)"), token: first.kiosk)
                                try #require(placed.status == .created)
                            }
                        }
                    }
                    let expected = 2 * (2 * ordersEach + 1)
                    let deadline = ContinuousClock.now + .seconds(60)
                    while seen.count < expected, ContinuousClock.now < deadline {
                        let page = try await display.send(
                            .get, "/v1/cafes/testcafe/tickets?after=\(cursor)&wait=2",
                            token: first.kitchen)
                        seen += try tickets(page).compactMap { $0["id"]?.stringValue }
                        cursor = try #require(try page.json["cursor"]?.stringValue)
                    }
                    try await group.waitForAll()
                    #expect(seen.count == expected, "every ticket shown")
                    #expect(Set(seen).count == seen.count, "no ticket shown twice")
                }
                let stored = try await first.rowCount("ticket")
                #expect(stored == seen.count)
            }
        }
    }
}
