import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A salad only: one ticket, at the cold station.
func saladOrder(name: String = "Ada") -> JSONValue {
    orderBody(lines: [["itemId": "salad", "quantity": 1]], name: name)
}

extension TestClientProtocol {
    /// Moves a ticket as a kitchen; fails the test unless the move is accepted.
    @discardableResult
    func move(_ ticketID: String, to status: String, token: String) async throws -> TestResponse {
        let response = try await send(
            .post, "/v1/tickets/\(ticketID)/status", token: token, json: ["status": .string(status)])
        try #require(response.status == .ok, "moving \(ticketID) to \(status): \(String(buffer: response.body))")
        return response
    }

    /// Places an order and returns its id and its tickets' ids (by station).
    func placed(_ body: JSONValue, token: String) async throws -> (id: String, tickets: [String: String]) {
        let response = try await placeOrder(body, token: token)
        try #require(response.status == .created, "placing: \(String(buffer: response.body))")
        let json = try response.json
        let id = try #require(json["id"]?.stringValue)
        guard case .array(let tickets)? = json["tickets"] else { throw TestFailure("no tickets") }
        var byStation: [String: String] = [:]
        for ticket in tickets {
            byStation[try #require(ticket["station"]?.stringValue)] = try #require(ticket["id"]?.stringValue)
        }
        return (id, byStation)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The stored events of an order, oldest first.
func storedEvents(_ environment: TestEnvironment, orderID: String) async throws -> [OrderEvent] {
    try await environment.stores.orderEvents.events(orderID: orderID, after: 0)
}

@Suite("The order-event outbox")
struct OrderEventOutboxTests {
    @Test("placing an order writes its order.placed event with it; a refused order writes none")
    func placement() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(orderBody(), token: environment.kiosk)
            let events = try await storedEvents(environment, orderID: order.id)
            #expect(events.map(\.type) == [.placed])
            #expect(events.first?.previousSequence == nil)
            #expect(events.first?.ticketStatuses == nil)
            #expect(events.first?.id.hasPrefix("evt_") == true)

            let refused = try await client.placeOrder(
                orderBody(lines: [["itemId": "caviar", "quantity": 1]]),
                token: environment.kiosk)
            #expect(refused.status.code == 422)
            #expect(try await environment.rowCount("orderEvent") == 1)
            #expect(try await environment.rowCount("customerOrder") == 1)
        }
    }

    @Test("concurrent orders share a transaction, and only the committed ones have events")
    func groupCommit() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 0..<40 {
                    group.addTask {
                        let lines: JSONValue =
                            number % 4 == 0
                            ? [["itemId": "caviar", "quantity": 1]]
                            : [["itemId": "salad", "quantity": 1]]
                        return Int(
                            try await client.placeOrder(
                                orderBody(lines: lines, name: "N\(number)"),
                                token: environment.kiosk
                            ).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 30)
            #expect(try await environment.rowCount("orderEvent") == 30)
            let orphans = try await environment.stores.sqliteDatabase!.writer.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM customerOrder o
                        WHERE (SELECT COUNT(*) FROM orderEvent e WHERE e.orderId = o.id AND e.type = 'order.placed') != 1
                        """) ?? -1
            }
            #expect(orphans == 0, "every order has exactly one order.placed event")
        }
    }

    @Test("a ticket move writes an event only when it changes the order's status, each naming the one before")
    func moves() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(orderBody(), token: environment.kiosk)
            let bar = try #require(order.tickets["bar"])
            let cold = try #require(order.tickets["cold"])
            try await client.move(bar, to: "preparing", token: environment.kitchen)  // placed → preparing
            try await client.move(cold, to: "preparing", token: environment.kitchen)  // still preparing
            try await client.move(bar, to: "ready", token: environment.kitchen)  // cold still preparing
            try await client.move(cold, to: "ready", token: environment.kitchen)  // → ready
            try await client.move(bar, to: "preparing", token: environment.kitchen)  // recall → preparing
            try await client.move(bar, to: "ready", token: environment.kitchen)  // → ready
            try await client.move(bar, to: "picked_up", token: environment.kitchen)  // cold still ready
            try await client.move(cold, to: "picked_up", token: environment.kitchen)  // → picked up
            // A refused move writes nothing (picked_up may only be undone back to ready).
            let refused = try await client.send(
                .post, "/v1/tickets/\(cold)/status", token: environment.kitchen,
                json: ["status": "preparing"])
            #expect(refused.status == .conflict)

            let events = try await storedEvents(environment, orderID: order.id)
            #expect(events.map(\.type) == [.placed, .preparing, .ready, .preparing, .ready, .pickedUp])
            #expect(zip(events, events.dropFirst()).allSatisfy { $1.previousSequence == $0.sequence })
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
            #expect(events[2].ticketStatuses == [bar: .ready, cold: .ready])
            #expect(events[3].ticketStatuses == [bar: .preparing, cold: .ready])
        }
    }

    @Test("cancelling an order writes order.cancelled once; cancelling it again writes nothing")
    func cancellation() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placed(orderBody(), token: environment.kiosk)
            for _ in 0..<2 {
                let cancelled = try await client.send(.post, "/v1/orders/\(order.id)/cancel", token: environment.kiosk)
                #expect(cancelled.status == .ok)
            }
            let events = try await storedEvents(environment, orderID: order.id)
            #expect(events.map(\.type) == [.placed, .cancelled])
        }
    }
}
