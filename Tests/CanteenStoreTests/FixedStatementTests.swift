import CanteenCore
import Foundation
import PostgresNIO
import Testing

@testable import CanteenPostgres

/// The prepared statements of the order path and of following the feed (PostgreSQL parses and plans each once per
/// connection): one text for every value they are given, or a refusal naming them. Running them
/// is the PostgreSQL suites' part (`scripts/test-postgres.sh`).
@Suite("PostgreSQL's prepared statements: one text whatever the values")
struct FixedStatementTests {
    @Test("claiming keys: the same text for none, one or several, with and without answer languages")
    func claimKeys() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let one = PostgresIdempotencyStore.ClaimKeys([
            (IdempotencyKey(tokenID: "tok_1", key: "k-1", requestHash: Data([1, 2, 3])), "ord_1", now)
        ])
        let several = PostgresIdempotencyStore.ClaimKeys([
            (IdempotencyKey(tokenID: "tok_1", key: "k-1", requestHash: Data([1, 2, 3])), "ord_1", now),
            (
                IdempotencyKey(tokenID: "tok_2", key: "other", requestHash: Data(), answerLanguage: "ar-KW"), "ord_2",
                now + 1
            ),
        ])
        for statement in [PostgresIdempotencyStore.ClaimKeys([]), one, several] {
            #expect(statement.query.sql == PostgresIdempotencyStore.ClaimKeys.sql)
            #expect(try statement.makeBindings().count == 7)
        }
        #expect(PostgresIdempotencyStore.ClaimKeys.sql.contains("INSERT INTO idempotencyRecord"))
    }

    @Test("writing an order: the same text with a coupon, a signed-in person and a key, and without")
    func writeOrder() throws {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let window = PickupWindow(start: start, end: start + 600)
        let bare = PostgresOrderStore.WriteOrder(
            cafeID: "seattle", slotKey: 1_790_000_000, units: 1, capacity: 40, localDate: "2026-09-21",
            orderID: "ord_1", customerName: "Ana", userID: nil, tokenID: nil, window: window, subtotal: 450,
            tax: 45, total: 495, currency: "USD", now: start, couponID: nil, discountLabel: nil, discount: 0,
            readyAt: start, linesJSON: "[]")
        let full = PostgresOrderStore.WriteOrder(
            cafeID: "kuwait", slotKey: 1_790_000_600, units: 3, capacity: 12, localDate: "2026-09-22",
            orderID: "ord_2", customerName: "سارة", userID: "u-sara", tokenID: "tok_9", window: window,
            subtotal: 1_250, tax: 0, total: 1_000, currency: "KWD", now: start, couponID: "cpn_1",
            discountLabel: "Welcome", discount: 250, readyAt: start + 300, linesJSON: #"[{"position":0}]"#)
        for statement in [bare, full] {
            #expect(statement.query.sql == PostgresOrderStore.WriteOrder.sql)
        }
        #expect(try bare.makeBindings().count == full.makeBindings().count)
    }

    @Test(
        "writing a batch's tickets and events: the same text for no ticket, or held and timed tickets of several orders"
    )
    func writeTickets() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        typealias Statement = PostgresOrderStore.WriteTickets
        let none = Statement(tickets: [], events: [])
        func ticket(_ id: String, cafe: String, sequence: Int64, fireAt: Date?, prep: Int?) -> Ticket {
            Ticket(
                id: id, orderID: "ord_\(sequence)", cafeID: cafe, station: "bar", status: fireAt == nil ? .new : .held,
                sequence: sequence, createdAt: now, updatedAt: now, prepSeconds: prep, fireAt: fireAt,
                firedAt: fireAt == nil ? now : nil)
        }
        func event(_ id: String, sequence: Int64) -> OrderEvent {
            OrderEvent(
                id: id, sequence: sequence, previousSequence: nil, orderID: "ord_\(sequence)", cafeID: "seattle",
                type: .placed, ticketStatuses: nil, createdAt: now)
        }
        let several = Statement(
            tickets: [
                ticket("tkt_1", cafe: "seattle", sequence: 1, fireAt: nil, prep: nil),
                ticket("tkt_2", cafe: "kuwait", sequence: 2, fireAt: now + 600, prep: 300),
            ],
            events: [event("evt_1", sequence: 1), event("evt_2", sequence: 2)])
        for statement in [none, several] {
            #expect(statement.query.sql == Statement.sql)
            #expect(try statement.makeBindings().count == 19)
        }
        #expect(Statement.sql.contains("UPDATE feedSequence"))
    }

    @Test("the statements every batch and every commit run: one text for any values, each value bound")
    func batchAndFollowStatements() throws {
        for statement in [
            PostgresOrderStore.LockCafes(ids: []), .init(ids: ["a"]), .init(ids: ["b", "c", "d"]),
        ] {
            #expect(statement.query.sql == PostgresOrderStore.LockCafes.sql)
            #expect(try statement.makeBindings().count == 1)
        }
        #expect(PostgresOrderStore.LockCafes.sql.contains("FOR NO KEY UPDATE"))
        for statement in [PostgresOrderStore.LockCafe(id: ""), .init(id: "zürich-hb")] {
            #expect(statement.query.sql == PostgresOrderStore.LockCafe.sql)
            #expect(try statement.makeBindings().count == 1)
        }
        #expect(PostgresOrderStore.LockCafe.sql.contains("FOR NO KEY UPDATE"))
        for statement in [
            PostgresPickupCapacityStore.UsedCapacity(cafeID: "", first: 0, last: 0),
            .init(cafeID: "zürich-hb", first: 1_790_000_000, last: Int64.max),
        ] {
            #expect(statement.query.sql == PostgresPickupCapacityStore.UsedCapacity.sql)
            #expect(try statement.makeBindings().count == 3)
        }
        for statement in [
            PostgresTicketStore.FeedChanges(after: 0, upTo: 10_000), .init(after: -1, upTo: Int64.max),
        ] {
            #expect(statement.query.sql == PostgresTicketStore.FeedChanges.sql)
            #expect(try statement.makeBindings().count == 2)
        }
        for statement in [
            PostgresOrderEventStore.EventWindow(after: 0, upTo: 10_000, limit: 1000),
            .init(after: 5, upTo: 6, limit: 1),
        ] {
            #expect(statement.query.sql == PostgresOrderEventStore.EventWindow.sql)
            #expect(try statement.makeBindings().count == 3)
        }
    }

    /// A statement whose text depends on its values: a defect the check catches.
    struct Drifting: FixedStatement {
        static let sql = Drifting(station: nil).query.sql
        let station: String?
        var query: PostgresQuery {
            station.map { "SELECT id FROM ticket WHERE station = \($0)" } ?? "SELECT id FROM ticket"
        }
    }

    @Test("a statement whose text changes with its values is refused, naming it, before anything is sent")
    func drifting() throws {
        #expect(throws: Never.self) { try Drifting(station: nil).makeBindings() }
        let error = #expect(throws: PostgresFixedStatementError.self) { try Drifting(station: "grill").makeBindings() }
        #expect(error?.description.contains("Drifting") == true)
    }
}
