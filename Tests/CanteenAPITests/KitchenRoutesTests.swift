import CanteenAPI
import CanteenCore
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Kitchen timing over HTTP: ready times, held tickets, live times, busy windows, limited dishes")
struct KitchenRoutesTests {
    /// Gives the test café station prep times (grill 8 min, cold 5, bar 2) and, optionally, a
    /// salad of `salads` a day.
    static func timeKitchen(
        _ client: any TestClientProtocol, _ environment: TestEnvironment,
        salads: Int? = nil
    ) async throws {
        var document = Fixtures.cafeDocument()
        document["stations"] = [
            ["id": "grill", "prepSeconds": 480], ["id": "cold", "prepSeconds": 300],
            ["id": "bar", "prepSeconds": 120],
        ]
        let saved = try await client.send(
            .put, "/v1/cafes/testcafe", token: environment.ops,
            json: .object(Fixtures.cafeConfiguration(document)))
        #expect(saved.status == .ok)
        #expect(try saved.json["stations", 0] == ["id": "grill", "prepSeconds": 480])
        #expect(try saved.json["fireByPrepTime"] == true)
        if let salads {
            var menu = Fixtures.menuDocument(document)
            if case .array(var items)? = menu["items"], case .object(var salad) = items[2] {
                salad["dailyQuantity"] = .int(Int64(salads))
                items[2] = .object(salad)
                menu["items"] = .array(items)
            }
            let replaced = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.ops, json: .object(menu))
            #expect(replaced.status == .ok)
        }
    }

    @Test("an order's answer carries readyAt and its held ticket's fireAt; the kitchen may fire it now")
    func readyAtAndHeld() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.timeKitchen(client, environment)
            // A latte (bar, 2 min) and a salad (cold, 5 min) at 09:00 Chicago (15:00 UTC)
            let placed = try await client.placeOrder(orderBody(), token: environment.kiosk)
            #expect(placed.status == .created)
            let order = try placed.json
            #expect(order["readyAt"] == "2026-11-23T15:05:00Z")
            #expect(order["status"] == "placed")
            #expect(order["tickets", 0, "station"] == "bar")
            #expect(order["tickets", 0, "status"] == "held")
            #expect(order["tickets", 0, "fireAt"] == "2026-11-23T15:03:00Z")
            #expect(order["tickets", 1, "status"] == "new")
            #expect(order["tickets", 1, "fireAt"] == nil)
            // The bar's display sees the ticket held, with its fire time and prep time
            let feed = try await client.send(.get, "/v1/cafes/testcafe/tickets?station=bar", token: environment.kitchen)
            #expect(try feed.json["tickets", 0, "status"] == "held")
            #expect(try feed.json["tickets", 0, "fireAt"] == "2026-11-23T15:03:00Z")
            #expect(try feed.json["tickets", 0, "prepSeconds"] == 120)
            #expect(try feed.json["tickets", 0, "statusLabel"] == "Held")
            // The kitchen fires it now
            let ticketID = try #require(order["tickets", 0, "id"]?.stringValue)
            environment.clock.advance(by: 30)
            let fired = try await client.send(
                .post, "/v1/tickets/\(ticketID)/status", token: environment.kitchen,
                json: ["status": "new"])
            #expect(fired.status == .ok)
            #expect(try fired.json["status"] == "new")
            #expect(try fired.json["firedAt"] == "2026-11-23T15:00:30Z")
            #expect(try fired.json["fireAt"] == nil)
            // It cannot go back to held
            let back = try await client.send(
                .post, "/v1/tickets/\(ticketID)/status", token: environment.kitchen,
                json: ["status": "held"])
            #expect(back.status == .conflict)
            #expect(back.errorCode == "invalid_transition")
            // The order still reads its estimate
            let read = try await client.send(
                .get, "/v1/orders/\(try #require(order["id"]?.stringValue))",
                token: environment.kiosk)
            #expect(try read.json["readyAt"] == "2026-11-23T15:05:00Z")
            #expect(try read.json["tickets", 0, "status"] == "new")
        }
    }

    @Test("an untimed café fires every ticket at once and expects the order at its window's start")
    func untimedCafe() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placeOrder(orderBody(), token: environment.kiosk).json
            #expect(order["readyAt"] == "2026-11-23T15:15:00Z")
            #expect(order["tickets", 0, "status"] == "new")
            #expect(order["tickets", 1, "status"] == "new")
        }
    }

    @Test("a window the grill's queue cannot meet: kitchen_busy in the windows and at order time (409, translated)")
    func kitchenBusy() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.timeKitchen(client, environment)
            for number in 0..<4 {
                let burrito = orderBody(lines: [["itemId": "burrito", "quantity": 1]], name: "b\(number)")
                #expect(try await client.placeOrder(burrito, token: environment.kiosk).status == .created)
            }
            // Four burritos on one grill: a fifth is ready at 09:40 at the earliest
            let listed = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows?items=burrito",
                token: environment.kiosk
            ).json
            #expect(listed["windows", 0, "start"] == "2026-11-23T09:15:00-06:00")
            #expect(listed["windows", 0, "available"] == false)
            #expect(listed["windows", 0, "unavailableReason"] == "kitchen_busy")
            #expect(listed["windows", 1, "unavailableReason"] == "kitchen_busy")
            #expect(listed["windows", 2, "available"] == true)
            #expect(listed["windows", 2, "unavailableReason"] == nil)
            // Without items: a latte could still be ready in time (the bar is idle)
            let any = try await client.send(.get, "/v1/cafes/testcafe/pickup-windows", token: environment.kiosk).json
            #expect(any["windows", 0, "available"] == true)
            let unknown = try await client.send(
                .get, "/v1/cafes/testcafe/pickup-windows?items=soup",
                token: environment.kiosk)
            #expect(unknown.status.code == 422)
            #expect(unknown.errorField == "items")
            // Ordering a burrito for 09:15–09:30 is refused, in the reader's language
            let body = orderBody(start: "2026-11-23T09:15:00-06:00", lines: [["itemId": "burrito", "quantity": 1]])
            let refused = try await client.placeOrder(body, token: environment.kiosk, acceptLanguage: "fr")
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "kitchen_busy")
            #expect(refused.errorField == "pickup.start")
            let message = try refused.json["error", "message"]?.stringValue ?? ""
            #expect(!message.isEmpty && !message.contains("the kitchen is too busy"))
            #expect(try await environment.rowCount("customerOrder") == 4)
        }
    }

    @Test("live times: per station, open and held tickets, median and p90 fired → ready, and the queue")
    func liveTimes() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.timeKitchen(client, environment)
            let order = try await client.placeOrder(orderBody(), token: environment.kiosk).json
            let cold = try #require(order["tickets", 1, "id"]?.stringValue)
            environment.clock.advance(by: 60)
            _ = try await client.send(
                .post, "/v1/tickets/\(cold)/status", token: environment.kitchen,
                json: ["status": "preparing"])
            environment.clock.advance(by: 300)
            _ = try await client.send(
                .post, "/v1/tickets/\(cold)/status", token: environment.kitchen, json: ["status": "ready"])
            _ = try await client.placeOrder(
                orderBody(lines: [["itemId": "salad", "quantity": 1]]), token: environment.kiosk)
            let times = try await client.send(.get, "/v1/cafes/testcafe/kitchen", token: environment.kitchen)
            #expect(times.status == .ok)
            let json = try times.json
            #expect(json["timed"] == true)
            #expect(json["stations", 0, "id"] == "grill")
            #expect(json["stations", 1, "id"] == "cold")
            #expect(json["stations", 1, "heldTickets"] == 0)
            #expect(json["stations", 1, "openTickets"] == 2)
            #expect(json["stations", 1, "finishedLastHour"] == 1)
            #expect(json["stations", 1, "medianSeconds"] == 360)
            #expect(json["stations", 1, "p90Seconds"] == 360)
            #expect(json["stations", 1, "queueSeconds"] == 300)
            #expect(json["stations", 1, "cooks"] == 1)
            #expect(json["stations", 2, "id"] == "bar")
            #expect(json["stations", 2, "heldTickets"] == 1)
            #expect(
                try await client.send(.get, "/v1/cafes/nowhere/kitchen", token: environment.ops).status == .notFound)
            #expect(try await client.send(.get, "/v1/cafes/testcafe/kitchen").status == .unauthorized)
        }
    }

    @Test("limited dishes: the menu shows what is left; the café's kitchen sets it; at 0 it is sold out")
    func limitedDishes() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            try await Self.timeKitchen(client, environment, salads: 3)
            let menu = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk)
            #expect(try menu.json["categories", 1, "items", 1, "id"] == "salad")
            #expect(try menu.json["categories", 1, "items", 1, "remaining"] == 3)
            #expect(try menu.json["categories", 1, "items", 1, "dailyQuantity"] == 3)
            #expect(try menu.json["categories", 1, "items", 1, "prepSeconds"] == 300)
            #expect(try menu.json["categories", 0, "items", 0, "remaining"] == nil)
            let etag = try #require(menu.headers[.eTag])
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            let after = try await client.send(
                .get, "/v1/cafes/testcafe/menu", token: environment.kiosk,
                headers: [.ifNoneMatch: etag])
            #expect(after.status == .ok)
            #expect(try after.json["categories", 1, "items", 1, "remaining"] == 2)

            // The café's kitchen sets what is left; a kiosk may not; a bad count is named
            let path = "/v1/cafes/testcafe/menu/items/salad/remaining"
            let set = try await client.send(.put, path, token: environment.kitchen, json: ["remaining": 0])
            #expect(set.status == .ok)
            #expect(
                try set.json == [
                    "cafeId": "testcafe", "itemId": "salad", "date": "2026-11-23", "dailyQuantity": 3,
                    "remaining": 0,
                ])
            #expect(
                try await client.send(.put, path, token: environment.kiosk, json: ["remaining": 5]).status == .forbidden
            )
            let negative = try await client.send(.put, path, token: environment.ops, json: ["remaining": -1])
            #expect(negative.status.code == 422)
            #expect(negative.errorField == "remaining")
            let unlimited = try await client.send(
                .put, "/v1/cafes/testcafe/menu/items/latte/remaining",
                token: environment.ops, json: ["remaining": 5])
            #expect(unlimited.status.code == 422)
            #expect(
                try await client.send(
                    .put, "/v1/cafes/testcafe/menu/items/soup/remaining", token: environment.ops,
                    json: ["remaining": 5]
                ).status == .notFound)

            // At 0 the salad is sold out, and ordering it says so
            let soldOut = try await client.send(.get, "/v1/cafes/testcafe/menu", token: environment.kiosk).json
            #expect(soldOut["categories", 1, "items", 1, "available"] == false)
            #expect(soldOut["categories", 1, "items", 1, "unavailableReason"] == "sold_out")
            let refused = try await client.placeOrder(orderBody(), token: environment.kiosk)
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "item_unavailable")
            #expect(refused.errorField == "lines[1].itemId")
            // Two more found; three asked is too many
            _ = try await client.send(.put, path, token: environment.kitchen, json: ["remaining": 2])
            let tooMany = try await client.placeOrder(
                orderBody(lines: [["itemId": "salad", "quantity": 3]]),
                token: environment.kiosk)
            #expect(tooMany.errorCode == "not_enough_left")
        }
    }
}
