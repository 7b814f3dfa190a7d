import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@testable import CanteenAPI

/// The order and ticket bodies are written with `JSONWriter`; they must be the very bytes
/// `JSONEncoder` gives for the same DTO, in every language and with every optional shape.
@Suite("Direct JSON of orders and tickets")
struct DirectJSONTests {
    func encoded(_ value: some Encodable) throws -> [UInt8] { Array(try JSONResponse.encoder.encode(value)) }

    static func order(note: String?, userID: String?, options: Bool) -> Order {
        let start = Date(timeIntervalSince1970: 1_795_000_500)
        let names = LocalizedText(["en": "Caf\u{E9} \"latte\"", "ja": "カフェラテ", "fr": "Caf\u{E9} cr\u{E8}me"])
        let sold =
            options
            ? [
                SoldOption(
                    groupID: "milk", optionID: "oat", names: LocalizedText(["en": "Oat / soy\tmilk"]), priceDelta: 75)
            ]
            : []
        let lines = [
            OrderLine(
                itemID: "latte", names: names, station: "bar", quantity: 2, options: sold, note: note,
                unitPrice: 475, lineTotal: 950),
            OrderLine(
                itemID: "bagel", names: LocalizedText(["en": "Bagel"]), station: "kitchen", quantity: 1,
                options: [], note: nil, unitPrice: 300, lineTotal: 300),
        ]
        let tickets = [
            Ticket(
                id: "tkt_a", orderID: "ord_1", cafeID: "testcafe", station: "bar", status: .ready, sequence: 41,
                createdAt: start, updatedAt: start.addingTimeInterval(61.7)),
            Ticket(
                id: "tkt_b", orderID: "ord_1", cafeID: "testcafe", station: "kitchen", status: .new, sequence: 42,
                createdAt: start, updatedAt: start),
        ]
        return Order(
            id: "ord_1", cafeID: "testcafe", number: 17, customer: Customer(name: "Zo\u{EB} \\ O'Neil", userID: userID),
            pickup: PickupWindow(start: start, end: start.addingTimeInterval(900)), lines: lines,
            subtotal: Money(minorUnits: 1250, currency: .usd), tax: Money(minorUnits: 113, currency: .usd),
            total: Money(minorUnits: 1363, currency: .usd), createdAt: start.addingTimeInterval(-0.4),
            tickets: tickets)
    }

    @Test("orders and tickets: the same bytes as JSONEncoder", arguments: ["en-US", "ja", "fr-CA, fr;q=0.8", "ar"])
    func sameBytes(acceptLanguage: String) throws {
        let cafe = try Fixtures.cafeAndMenu().cafe
        let presentation = Presenter(strings: TestEnvironment.strings).presentation(
            acceptLanguage: acceptLanguage, cafe: cafe)
        for (note, userID, options) in [("no ice \u{1}", "u-9", true), (nil, nil, false), ("", nil, true)] {
            var order = Self.order(note: note, userID: userID, options: options)
            let dto = OrderDTO(order, cafe: cafe, presentation: presentation)
            #expect(JSONWriter.encode(dto) == (try encoded(dto)))
            order.discount = OrderDiscount(couponID: "LUNCH-2", label: "2 $ \"off\"", amount: 200)
            let discounted = OrderDTO(order, cafe: cafe, presentation: presentation)
            #expect(JSONWriter.encode(discounted) == (try encoded(discounted)))
            let views = order.tickets.map { ticket in
                TicketView(
                    ticket: ticket, orderNumber: order.number, customer: order.customer, pickup: order.pickup,
                    lines: order.lines.filter { $0.station == ticket.station })
            }
            let feed = TicketFeedDTO(
                tickets: views.map { TicketDTO($0, cafe: cafe, presentation: presentation) },
                cursor: "42")
            #expect(JSONWriter.encode(feed) == (try encoded(feed)))
            let empty = TicketFeedDTO(tickets: [], cursor: "0")
            #expect(JSONWriter.encode(empty) == (try encoded(empty)))
        }
    }
}
