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

@Suite("The console's API: audit log, reports (JSON and CSV), menu document, cards, tokens' last use, overview")
struct ConsoleAPITests {
    static let csv: HTTPFields = [.accept: "text/csv"]

    @Test("changes made with an ops or kitchen token are in GET /v1/audit with who made them; a kiosk's order is not")
    func audited() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let price = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/salad", token: environment.ops,
                json: ["price": 800])
            #expect(price.status == .ok)
            environment.clock.advance(by: 30)
            let soldOut = try await client.send(
                .patch, "/v1/cafes/testcafe/menu/items/latte", token: environment.kitchen,
                json: ["soldOut": true])
            #expect(soldOut.status == .ok)
            #expect(
                try await client.placeOrder(
                    orderBody(lines: [["itemId": "salad", "quantity": 1]]),
                    token: environment.kiosk
                ).status == .created)
            let log = try await client.send(.get, "/v1/audit", token: environment.ops)
            #expect(log.status == .ok)
            let body = try log.json
            #expect(body["entries", 0, "action"] == "item.change")
            #expect(body["entries", 0, "actor", "role"] == "kitchen")
            #expect(body["entries", 0, "actor", "tokenName"] == "kitchen")
            #expect(body["entries", 0, "changes", 0] == ["field": "soldOut", "before": false, "after": true])
            #expect(body["entries", 1, "actor", "tokenName"] == "ops")
            #expect(body["entries", 1, "target"] == ["kind": "item", "id": "salad"])
            #expect(body["entries", 1, "cafeId"] == "testcafe")
            #expect(body["entries", 1, "changes", 0] == ["field": "price", "before": 750, "after": 800])
            #expect(body["entries", 1, "at"] == .string(RFC3339.utcSeconds(Fixtures.chicagoMonday(hour: 9))))
            #expect(body["entries", 2] == nil)
            #expect(body["next"] == .null)
        }
    }

    @Test("setting what is left of a limited dish is audited with the count before and after")
    func remainingAudited() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given a salad of 3 a day, of which an order took 1
            try await KitchenRoutesTests.timeKitchen(client, environment, salads: 3)
            #expect(
                try await client.placeOrder(
                    orderBody(lines: [["itemId": "salad", "quantity": 1]]),
                    token: environment.kiosk
                ).status == .created)
            // When the café's kitchen says none is left
            let path = "/v1/cafes/testcafe/menu/items/salad/remaining"
            #expect(try await client.send(.put, path, token: environment.kitchen, json: ["remaining": 0]).status == .ok)
            // Then the log has who did it and the count before and after; a refused count records nothing
            #expect(
                try await client.send(.put, path, token: environment.ops, json: ["remaining": -1]).status.code == 422)
            let body = try await client.send(.get, "/v1/audit", token: environment.ops).json
            #expect(body["entries", 0, "action"] == "item.remaining")
            #expect(body["entries", 0, "actor", "role"] == "kitchen")
            #expect(body["entries", 0, "target"] == ["kind": "item", "id": "salad"])
            #expect(body["entries", 0, "cafeId"] == "testcafe")
            #expect(body["entries", 0, "changes"] == [["field": "remaining", "before": 2, "after": 0]])
            #expect(body["entries", 1, "action"] == "menu.replace")
        }
    }

    @Test("a café sent back as GET gave it (as the console's settings do) saves with nothing lost")
    func cafeRoundTrip() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            // Given a café with networks and timed stations
            var document = Fixtures.cafeDocument()
            document["networks"] = ["10.20.0.0/16"]
            document["stations"] = [["id": "bar", "prepSeconds": 120]]
            let saved = try await client.send(
                .put, "/v1/cafes/testcafe", token: environment.ops,
                json: .object(Fixtures.cafeConfiguration(document)))
            #expect(saved.status == .ok)
            // When the console sends back what it read, with one setting changed
            let read = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops)
            guard case .object(var cafe) = try read.json, case .object(var pickup)? = cafe["pickup"] else {
                Issue.record("GET /v1/cafes/testcafe is not an object with pickup")
                return
            }
            pickup["leadMinutes"] = 20
            cafe["pickup"] = .object(pickup)
            let again = try await client.send(.put, "/v1/cafes/testcafe", token: environment.ops, json: .object(cafe))
            // Then it is taken, and the networks and stations are as they were
            #expect(again.status == .ok, "\(String(buffer: again.body))")
            let after = try await client.send(.get, "/v1/cafes/testcafe", token: environment.ops).json
            #expect(after["networks"] == ["10.20.0.0/16"])
            #expect(after["stations", 0] == ["id": "bar", "prepSeconds": 120])
            #expect(after["pickup", "leadMinutes"] == 20)
        }
    }

    @Test("an invalid change shows its field error and records nothing")
    func failedChange() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var menu = Fixtures.menuDocument()
            if case .array(var items)? = menu["items"], case .object(var salad) = items[2] {
                salad["price"] = .double(7.5)
                items[2] = .object(salad)
                menu["items"] = .array(items)
            }
            let refused = try await client.send(
                .put, "/v1/cafes/testcafe/menu", token: environment.ops, json: .object(menu))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorField == "items[2].price")
            let log = try await client.send(.get, "/v1/audit", token: environment.ops)
            #expect(try log.json["entries"] == [])
        }
    }

    @Test("only ops read the audit log; it pages by cursor and checks its query")
    func auditAccess() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for price in [500, 510, 520] {
                _ = try await client.send(
                    .patch, "/v1/cafes/testcafe/menu/items/salad", token: environment.ops,
                    json: ["price": .int(Int64(price))])
            }
            #expect(try await client.send(.get, "/v1/audit").status == .unauthorized)
            #expect(try await client.send(.get, "/v1/audit", token: environment.kitchen).status == .forbidden)
            #expect(try await client.send(.get, "/v1/audit", token: environment.kiosk).status == .forbidden)
            let first = try await client.send(.get, "/v1/audit?cafeId=testcafe&limit=2", token: environment.ops).json
            #expect(first["entries", 0, "changes", 0, "after"] == 520)
            #expect(first["entries", 1, "changes", 0, "after"] == 510)
            let next = try #require(first["next"]?.stringValue)
            let second = try await client.send(
                .get, "/v1/audit?cafeId=testcafe&limit=2&after=\(next)",
                token: environment.ops
            ).json
            #expect(second["entries", 0, "changes", 0, "after"] == 500)
            #expect(second["next"] == .null)
            #expect(
                try await client.send(.get, "/v1/audit?cafeId=othercafe", token: environment.ops).json["entries"] == [])
            for (query, field) in [
                ("limit=0", "limit"), ("from=yesterday", "from"), ("after=x", "after"),
                ("cafeId=No%20Such", "cafeId"),
            ] {
                let bad = try await client.send(.get, "/v1/audit?\(query)", token: environment.ops)
                #expect(bad.status.code / 100 == 4)
                #expect(bad.errorField == field)
            }
        }
    }

    @Test("the sales report equals the orders placed, per item, hour and day, as JSON and as CSV")
    func salesReport() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var totals: Int64 = 0
            for _ in 0..<2 {
                let placed = try await client.placeOrder(orderBody(), token: environment.kiosk)
                totals += try #require(
                    try placed.json["total", "amount"].flatMap { if case .int(let v) = $0 { v } else { nil } })
            }
            let path = "/v1/cafes/testcafe/reports/sales?from=2026-11-23&to=2026-11-23"
            let byDay = try await client.send(.get, path, token: environment.ops).json
            #expect(
                byDay["rows"] == [
                    [
                        "date": "2026-11-23", "currency": "USD", "orders": 2, "items": 6, "revenue": .int(totals),
                        "cancelledOrders": 0, "cancelledItems": 0, "cancelledRevenue": 0,
                    ]
                ])
            #expect(byDay["currencyExponent"] == 2)
            #expect(byDay["timeZone"] == "America/Chicago")
            let byHour = try await client.send(.get, path + "&by=hour", token: environment.ops).json
            #expect(byHour["rows", 9, "hour"] == 9)
            #expect(byHour["rows", 9, "orders"] == 2)
            #expect(byHour["rows", 10, "orders"] == 0)
            let csv = try await client.send(.get, path + "&by=item", token: environment.ops, headers: Self.csv)
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8; header=present")
            let text = String(buffer: csv.body)
            #expect(
                text == """
                    item,name,currency,orders,items,revenue,cancelled_orders,cancelled_items,cancelled_revenue\r
                    latte,Latte,USD,2,4,2340,0,0,0\r
                    salad,Garden salad,USD,2,2,1500,0,0,0\r

                    """)
        }
    }

    @Test("report queries are checked, and only ops read reports")
    func reportQueries() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let base = "/v1/cafes/testcafe/reports"
            for (query, field) in [
                ("sales?to=2026-11-23", "from"), ("sales?from=2026-11-23&to=2026-11-22", "to"),
                ("sales?from=2026-11-23&to=2026-11-23&by=week", "by"),
                ("kitchen?from=2026-02-30&to=2026-03-01", "from"), ("windows?date=today", "date"),
            ] {
                let bad = try await client.send(.get, "\(base)/\(query)", token: environment.ops)
                #expect(bad.status == .unprocessableContent, "\(query)")
                #expect(bad.errorField == field, "\(query)")
            }
            let forbidden = try await client.send(.get, "\(base)/windows", token: environment.kitchen)
            #expect(forbidden.status == .forbidden)
            #expect(
                try await client.send(.get, "/v1/cafes/nowhere/reports/windows", token: environment.ops).status
                    == .notFound)
        }
    }

    @Test("the windows report counts orders taken and orders refused because their window was full")
    func windowsReport() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            var cafe = Fixtures.cafeConfiguration()
            cafe["pickup"] = ["slotMinutes": 15, "capacity": 1, "capacityUnit": "orders", "leadMinutes": 10]
            #expect(
                try await client.send(.put, "/v1/cafes/testcafe", token: environment.ops, json: .object(cafe)).status
                    == .ok)
            let start = "2026-11-23T09:30:00-06:00"
            #expect(try await client.placeOrder(orderBody(start: start), token: environment.kiosk).status == .created)
            for _ in 0..<2 {
                #expect(
                    try await client.placeOrder(orderBody(start: start), token: environment.kiosk).status == .conflict)
            }
            let report = try await client.send(
                .get, "/v1/cafes/testcafe/reports/windows?date=2026-11-23",
                token: environment.ops
            ).json
            guard case .array(let windows)? = report["windows"] else { Issue.record("no windows"); return }
            let window = try #require(windows.first { $0["start"] == .string(start) })
            #expect(
                window == [
                    "start": .string(start), "end": "2026-11-23T09:45:00-06:00", "capacity": 1, "used": 1,
                    "orders": 1, "cancelled": 0, "refused": 2,
                ])
            #expect(windows.count == 48)
            let csv = String(
                buffer: try await client.send(
                    .get, "/v1/cafes/testcafe/reports/windows?date=2026-11-23",
                    token: environment.ops, headers: Self.csv
                ).body)
            #expect(csv.hasPrefix("start,end,capacity,capacity_unit,used,orders,cancelled,refused\r\n"))
            #expect(csv.contains("\r\n2026-11-23T09:30:00-06:00,2026-11-23T09:45:00-06:00,1,orders,1,1,0,2\r\n"))
        }
    }

    @Test("the kitchen report gives each station's times from placed to ready")
    func kitchenReport() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let order = try await client.placeOrder(orderBody(), token: environment.kiosk).json
            guard case .array(let tickets)? = order["tickets"] else { Issue.record("no tickets"); return }
            let bar = try #require(tickets.first { $0["station"] == "bar" }?["id"]?.stringValue)
            for (seconds, status) in [(60, "preparing"), (180, "ready")] {
                environment.clock.set(Fixtures.chicagoMonday(hour: 9).addingTimeInterval(TimeInterval(seconds)))
                #expect(
                    try await client.send(
                        .post, "/v1/tickets/\(bar)/status", token: environment.kitchen,
                        json: ["status": .string(status)]
                    ).status == .ok)
            }
            let report = try await client.send(
                .get, "/v1/cafes/testcafe/reports/kitchen?from=2026-11-23&to=2026-11-23",
                token: environment.ops
            ).json
            #expect(
                report["stations"] == [
                    [
                        "station": "bar", "tickets": 1, "cancelled": 0, "ready": 1, "readyByWindowStart": 1,
                        "p50Seconds": 180,
                        "p90Seconds": 180, "maxSeconds": 180,
                    ],
                    [
                        "station": "cold", "tickets": 1, "cancelled": 0, "ready": 0, "readyByWindowStart": 0,
                        "p50Seconds": .null,
                        "p90Seconds": .null, "maxSeconds": .null,
                    ],
                ])
            #expect(report["orders"] == ["orders": 1, "cancelled": 0, "ready": 0, "readyByWindowStart": 0])
            let csv = String(
                buffer: try await client.send(
                    .get, "/v1/cafes/testcafe/reports/kitchen?from=2026-11-23&to=2026-11-23", token: environment.ops,
                    headers: Self.csv
                ).body)
            #expect(
                csv == """
                    station,tickets,cancelled,ready,ready_by_window_start,p50_seconds,p90_seconds,max_seconds\r
                    bar,1,0,1,1,180,180,180\r
                    cold,1,0,0,0,,,\r

                    """)
        }
    }

    @Test("the menu document comes back as PUT takes it: sending it back unchanged changes nothing but the version")
    func menuDocument() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let first = try await client.send(.get, "/v1/cafes/testcafe/menu/document", token: environment.ops).json
            let document = try #require(first["document"])
            #expect(first["currencyExponent"] == 2)
            #expect(first["document", "items", 0, "names"] == ["en": "Latte", "es": "Café con leche"])
            #expect(first["document", "items", 0, "price"] == 450)
            let put = try await client.send(.put, "/v1/cafes/testcafe/menu", token: environment.ops, json: document)
            #expect(put.status == .ok)
            let second = try await client.send(.get, "/v1/cafes/testcafe/menu/document", token: environment.ops).json
            #expect(second["document"] == document)
            #expect(second["version"] != first["version"])
            let log = try await client.send(.get, "/v1/audit", token: environment.ops).json
            #expect(log["entries", 0, "action"] == "menu.replace")
            #expect(log["entries", 0, "changes"] == [])
            #expect(
                try await client.send(.get, "/v1/cafes/testcafe/menu/document", token: environment.kiosk).status
                    == .forbidden)
        }
    }

    @Test("ops list a person's cards and remove one; the list never shows a card's identifier")
    func cards() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            for identifier in ["04A25C1A2B3C80", "0102030405060708"] {
                #expect(
                    try await client.send(
                        .post, "/v1/cards", token: environment.ops,
                        json: [
                            "userId": "ada", "displayName": "Ada", "technology": "type2",
                            "identifier": .string(identifier),
                        ]
                    ).status == .created)
            }
            let listed = try await client.send(.get, "/v1/users/ada/cards", token: environment.ops)
            let body = String(buffer: listed.body)
            #expect(!body.contains("04A25C1A2B3C80") && !body.contains("0102030405060708"))
            guard case .array(let cards)? = try listed.json["cards"] else { Issue.record("no cards"); return }
            #expect(cards.count == 2)
            let id = try #require(cards[0]["id"]?.stringValue)
            #expect(
                try await client.send(.delete, "/v1/users/ada/cards/\(id)", token: environment.ops).status == .noContent
            )
            #expect(
                try await client.send(.delete, "/v1/users/ada/cards/\(id)", token: environment.ops).status == .notFound)
            #expect(
                try await client.send(.get, "/v1/users/ada/cards", token: environment.ops).json["cards"]
                    .map { if case .array(let a) = $0 { a.count } else { 0 } } == 1)
            #expect(try await client.send(.get, "/v1/users/ada/cards", token: environment.kiosk).status == .forbidden)
            let log = try await client.send(.get, "/v1/audit", token: environment.ops).json
            #expect(log["entries", 0, "action"] == "card.remove")
            #expect(log["entries", 0, "target"] == ["kind": "card", "id": .string(id)])
        }
    }

    @Test("the token list tells when each token was last used, never a secret")
    func lastUsed() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            environment.clock.advance(by: 120)
            _ = try await client.send(.get, "/v1/cafes", token: environment.kitchen)
            let list = try await client.send(.get, "/v1/tokens", token: environment.ops)
            let body = String(buffer: list.body)
            #expect(!body.contains(environment.kitchen) && !body.contains(environment.ops))
            guard case .array(let tokens)? = try list.json["tokens"] else { Issue.record("no tokens"); return }
            let kitchen = try #require(tokens.first { $0["name"] == "kitchen" })
            #expect(kitchen["lastUsedAt"] == .string(RFC3339.utcSeconds(environment.clock.now)))
            let unused = try #require(tokens.first { $0["name"] == "bound" })
            #expect(unused["lastUsedAt"] == .null)
        }
    }

    @Test("the overview shows each café's open tickets per station and status, and its next windows")
    func overview() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            _ = try await client.placeOrder(orderBody(), token: environment.kiosk)
            environment.clock.advance(by: 90)
            let body = try await client.send(.get, "/v1/overview", token: environment.ops).json
            guard case .array(let cafes)? = body["cafes"] else { Issue.record("no cafés"); return }
            let cafe = try #require(cafes.first { $0["id"] == "testcafe" })
            #expect(cafe["openOrders"] == 1)
            #expect(cafe["openTickets"] == 2)
            #expect(
                cafe["stations"] == [
                    ["station": "bar", "statuses": ["new": 1]],
                    ["station": "cold", "statuses": ["new": 1]],
                ])
            #expect(cafe["oldestOpenTicketSeconds"] == 90)
            #expect(cafe["nextWindows", 0, "remaining"] == 19)
            #expect(body["failingWebhooks"] == [])
            #expect(try await client.send(.get, "/v1/overview", token: environment.kitchen).status == .forbidden)
        }
    }
}
