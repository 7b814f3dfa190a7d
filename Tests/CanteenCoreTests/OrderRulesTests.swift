import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Order pricing, tax and ticket rules")
struct OrderRulesTests {
    func menu(soldOut: [String: SoldOut] = [:], included: Bool = false, rate: Int = 1025) throws -> CafeMenu {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        cafe.tax = TaxPolicy(rateBasisPoints: rate, included: included)
        return CafeMenu(cafe: cafe, menu: menu, soldOut: soldOut, version: 1)
    }

    func request(_ lines: [OrderLineRequest]) -> OrderRequest {
        OrderRequest(cafeID: "testcafe", lines: lines, pickup: .asap, customer: Customer(name: "Ada", userID: nil))
    }

    let nine = Fixtures.chicagoMonday(hour: 9)

    @Test("unit price is the item plus its options; tax is added once, rounded half away from zero")
    func pricing() throws {
        let order = request([
            OrderLineRequest(itemID: "latte", quantity: 2, options: ["large", "shot", "shot"], note: nil),
            OrderLineRequest(itemID: "salad", quantity: 1, options: [], note: "no onions"),
        ])
        let priced = try menu().price(order, pickupStart: nine, now: nine)
        #expect(priced.lines[0].unitPrice == 450 + 60 + 75 + 75)
        #expect(priced.lines[0].lineTotal == 1320)
        #expect(priced.subtotal.minorUnits == 2070)
        // 2070 × 10.25 % = 212.175 → 212
        #expect(priced.tax.minorUnits == 212)
        #expect(priced.total.minorUnits == 2282)
        #expect(priced.capacityUnits == 1)
    }

    @Test("tax rounding: exclusive half-cent rounds up, inclusive extracts the tax part")
    func taxRounding() {
        #expect(TaxPolicy(rateBasisPoints: 825, included: false).amount(of: 200) == 17)  // 16.5
        #expect(TaxPolicy(rateBasisPoints: 825, included: false).amount(of: -200) == -17)
        #expect(TaxPolicy(rateBasisPoints: 1000, included: true).amount(of: 1100) == 100)
        #expect(TaxPolicy(rateBasisPoints: 1000, included: true).amount(of: 480) == 44)  // 43.6
        #expect(TaxPolicy(rateBasisPoints: 0, included: false).amount(of: 12345) == 0)
        // Near Int64's limit the 128-bit product does not overflow.
        #expect(TaxPolicy(rateBasisPoints: 10_000, included: false).amount(of: .max) == .max)
    }

    @Test("an inclusive café's total is its subtotal")
    func inclusive() throws {
        let order = request([OrderLineRequest(itemID: "salad", quantity: 1, options: [], note: nil)])
        let priced = try menu(included: true, rate: 1000).price(order, pickupStart: nine, now: nine)
        #expect(priced.total == priced.subtotal)
        #expect(priced.tax.minorUnits == 68)  // 750 / 11 = 68.18
    }

    @Test("a size must be chosen exactly once; extra shots at most three")
    func selections() throws {
        let menu = try menu()
        let noSize = request([OrderLineRequest(itemID: "latte", quantity: 1, options: [], note: nil)])
        #expect(throws: CanteenError.self) { try menu.price(noSize, pickupStart: nine, now: nine) }
        let fourShots = request([
            OrderLineRequest(
                itemID: "latte", quantity: 1,
                options: ["small", "shot", "shot", "shot", "decaf-shot"], note: nil)
        ])
        do {
            _ = try menu.price(fourShots, pickupStart: nine, now: nine)
            Issue.record("four shots were accepted")
        } catch {
            #expect(error.code == .invalidSelection)
            #expect(error.field == "lines[0].options")
        }
    }

    @Test("an unknown item or option names its line")
    func unknown() throws {
        let menu = try menu()
        do {
            _ = try menu.price(
                request([OrderLineRequest(itemID: "latte", quantity: 1, options: ["small", "oat"], note: nil)]),
                pickupStart: nine, now: nine)
        } catch {
            #expect(error.code == .unknownOption)
            #expect(error.field == "lines[0].options[1]")
        }
        do {
            _ = try menu.price(
                request([OrderLineRequest(itemID: "pizza", quantity: 1, options: [], note: nil)]),
                pickupStart: nine, now: nine)
        } catch {
            #expect(error.code == .unknownItem)
        }
    }

    @Test("a sold-out item, or a breakfast item for a pickup after breakfast, is item_unavailable")
    func unavailable() throws {
        let salad = request([OrderLineRequest(itemID: "salad", quantity: 1, options: [], note: nil)])
        #expect(throws: CanteenError.self) {
            try menu(soldOut: ["salad": SoldOut(itemID: "salad", until: nil)]).price(
                salad, pickupStart: nine, now: nine)
        }
        let burrito = request([OrderLineRequest(itemID: "burrito", quantity: 1, options: [], note: nil)])
        #expect(
            try menu().price(burrito, pickupStart: Fixtures.chicagoMonday(hour: 10, minute: 15), now: nine).lines.count
                == 1)
        #expect(throws: CanteenError.self) {
            try menu().price(burrito, pickupStart: Fixtures.chicagoMonday(hour: 10, minute: 30), now: nine)
        }
    }

    @Test(
        "ticket moves: held→new, new→preparing→ready→picked_up, each undone one step back, cancel before pickup; everything else refused"
    )
    func transitions() {
        let allowed: Set<String> = [
            "held>new", "new>preparing", "preparing>ready", "ready>picked_up",
            "preparing>new", "ready>preparing", "picked_up>ready",
            "held>cancelled", "new>cancelled", "preparing>cancelled", "ready>cancelled",
        ]
        for from in TicketStatus.allCases {
            for to in TicketStatus.allCases {
                let key = "\(from.rawValue)>\(to.rawValue)"
                #expect(from.canMove(to: to) == allowed.contains(key), "\(key)")
                if !allowed.contains(key) {
                    #expect(throws: CanteenError.self) { try from.moved(to: to) }
                }
            }
        }
    }

    @Test("an order's status follows its tickets")
    func orderStatus() {
        #expect(OrderStatus(tickets: [.new, .new]) == .placed)
        #expect(OrderStatus(tickets: [.new, .preparing]) == .preparing)
        #expect(OrderStatus(tickets: [.ready, .pickedUp]) == .ready)
        #expect(OrderStatus(tickets: [.pickedUp, .cancelled]) == .pickedUp)
        #expect(OrderStatus(tickets: [.cancelled, .cancelled]) == .cancelled)
    }

    @Test(
        "order bodies are read with every problem named",
        arguments: [
            (JSONValue.object(["lines": [], "customer": ["name": "A"]]), "cafeId"),
            (["cafeId": "c", "lines": [], "customer": ["name": "A"]], "lines"),
            (
                ["cafeId": "c", "lines": [["itemId": "x", "quantity": 0]], "customer": ["name": "A"]],
                "lines[0].quantity"
            ),
            (
                ["cafeId": "c", "lines": [["itemId": "x", "quantity": 100]], "customer": ["name": "A"]],
                "lines[0].quantity"
            ),
            (
                ["cafeId": "c", "lines": [["itemId": "x", "quantity": 1, "extra": 1]], "customer": ["name": "A"]],
                "lines[0].extra"
            ),
            (
                [
                    "cafeId": "c", "lines": [["itemId": "x", "quantity": 1]], "customer": ["name": "A"],
                    "pickup": ["start": "noon"],
                ], "pickup.start"
            ),
            (["cafeId": "c", "lines": [["itemId": "x", "quantity": 1]]], "customer"),
        ] as [(JSONValue, String)])
    func badBodies(body: JSONValue, field: String) {
        do {
            _ = try OrderRequest.parse(body)
            Issue.record("accepted")
        } catch {
            #expect(error.problems.first?.path == field)
        }
    }

    @Test("more than 100 lines is too_many_lines")
    func tooManyLines() throws {
        let line: JSONValue = ["itemId": "salad", "quantity": 1]
        let body: JSONValue = [
            "cafeId": "c", "lines": .array(Array(repeating: line, count: 101)), "customer": ["name": "A"],
        ]
        #expect(throws: ValidationError.self) { try OrderRequest.parse(body) }
        let ok: JSONValue = [
            "cafeId": "c", "lines": .array(Array(repeating: line, count: 100)), "customer": ["name": "A"],
        ]
        #expect(try OrderRequest.parse(ok).lines.count == 100)
    }
}
