import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// Reading orders, their lines and tickets, shared by the order and ticket stores. Every value
/// that does not parse is an error naming its row.
enum OrderRows {
    static let selectTicket = """
        SELECT id, orderId, cafeId, station, status, sequence, createdAt, updatedAt, prepSeconds, fireAt, firedAt,
            startedAt, finishedAt
        FROM ticket
        """

    /// A row of `selectTicket`; a status this version does not know is an error naming the row.
    static func ticket(_ row: PostgresRow) throws -> Ticket {
        let (
            id, orderID, cafeID, station, status, sequence, createdAt, updatedAt, prep, fireAt, firedAt, startedAt,
            finishedAt
        ) = try StoredColumns.decode(
            row, table: "ticket",
            (String, String, String, String, String, Int64, Date, Date, Int?, Date?, Date?, Date?, Date?).self)
        guard let parsed = TicketStatus(rawValue: status) else {
            throw StoredRow.invalid(table: "ticket", id: id, "'\(status)' is not a ticket status")
        }
        return Ticket(
            id: id, orderID: orderID, cafeID: cafeID, station: station, status: parsed, sequence: sequence,
            createdAt: createdAt, updatedAt: updatedAt, prepSeconds: prep, fireAt: fireAt, firedAt: firedAt,
            startedAt: startedAt, finishedAt: finishedAt)
    }

    /// Writes a ticket's status, sequence and kitchen times (after a move).
    static func update(_ ticket: Ticket, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(
            """
            UPDATE ticket SET status = \(ticket.status.rawValue), sequence = \(ticket.sequence),
                updatedAt = \(ticket.updatedAt), firedAt = \(ticket.firedAt), startedAt = \(ticket.startedAt),
                finishedAt = \(ticket.finishedAt)
            WHERE id = \(ticket.id)
            """, logger: logger)
    }

    static let selectLine = """
        SELECT orderId, position, itemId, names, station, quantity, unitPrice, lineTotal, options, note FROM orderLine
        """

    /// A row of `selectLine`, with its order's id.
    static func line(_ row: PostgresRow) throws -> (orderID: String, line: OrderLine) {
        let (orderID, position, itemID, names, station, quantity, unitPrice, lineTotal, options, note) =
            try StoredColumns.decode(
                row, table: "orderLine",
                (String, Int, String, String, String, Int, Int64, Int64, String, String?).self)
        let columns = StoredColumns(table: "orderLine", id: "\(orderID)/\(position)")
        return (
            orderID,
            OrderLine(
                itemID: itemID, names: try columns.json(names, "names"), station: station,
                quantity: quantity, options: try columns.json(options, "options"), note: note,
                unitPrice: unitPrice, lineTotal: lineTotal)
        )
    }

    /// One order with its lines and tickets, or nil.
    static func fetchOrder(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Order? {
        guard
            let row = try await connection.firstRow(
                """
                SELECT id, cafeId, number, customerName, userId, pickupStart, pickupEnd, subtotal, tax, total, currency,
                    createdAt, couponId, discountLabel, discount, readyAt
                FROM customerOrder WHERE id = \(id)
                """, logger: logger)
        else { return nil }
        let (
            orderID, cafeID, number, customerName, userID, pickupStart, pickupEnd, subtotal, tax, total, currencyCode,
            createdAt, couponID, discountLabel, discountAmount, readyAt
        ) = try StoredColumns.decode(
            row, table: "customerOrder",
            (
                String, String, Int, String, String?, Date, Date, Int64, Int64, Int64, String, Date, String?, String?,
                Int64, Date?
            ).self)
        var discount: OrderDiscount?
        if let couponID {
            // A coupon without its label is an error naming the row, as on SQLite.
            guard let discountLabel, discountAmount >= 0 else {
                throw StoredRow.invalid(
                    table: "customerOrder", id: orderID, "coupon \(couponID) without a label or amount")
            }
            discount = OrderDiscount(couponID: couponID, label: discountLabel, amount: discountAmount)
        }
        guard let currency = try? Currency(code: currencyCode) else {
            throw StoredRow.invalid(
                table: "customerOrder", id: orderID, "'\(currencyCode)' is not an ISO 4217 currency code")
        }
        let lines = try await connection.rows(
            "\(unescaped: selectLine) WHERE orderId = \(id) ORDER BY position",
            logger: logger
        ).map { try line($0).line }
        let tickets = try await connection.rows("\(unescaped: selectTicket) WHERE orderId = \(id)", logger: logger)
            .map(ticket)
        // Tickets in the order they were written: one per station, by the station's first line.
        var stations: [String] = []
        for line in lines where !stations.contains(line.station) { stations.append(line.station) }
        let sorted = tickets.sorted {
            (stations.firstIndex(of: $0.station) ?? .max, $0.id) < (stations.firstIndex(of: $1.station) ?? .max, $1.id)
        }
        return Order(
            id: orderID, cafeID: cafeID, number: number, customer: Customer(name: customerName, userID: userID),
            pickup: PickupWindow(start: pickupStart, end: pickupEnd), lines: lines, discount: discount,
            subtotal: Money(minorUnits: subtotal, currency: currency),
            tax: Money(minorUnits: tax, currency: currency),
            total: Money(minorUnits: total, currency: currency), createdAt: createdAt, tickets: sorted,
            readyAt: readyAt)
    }

    /// Ticket views with their order's number, customer, window and the lines of their station.
    static func views(_ connection: PostgresConnection, of tickets: [Ticket], logger: Logger) async throws
        -> [TicketView]
    {
        guard !tickets.isEmpty else { return [] }
        let orderIDs = Array(Set(tickets.map(\.orderID)))
        var orders: [String: (number: Int, customer: Customer, pickup: PickupWindow)] = [:]
        for row in try await connection.rows(
            """
            SELECT id, number, customerName, userId, pickupStart, pickupEnd FROM customerOrder WHERE id = ANY(\(orderIDs))
            """, logger: logger)
        {
            let (id, number, name, userID, start, end) = try StoredColumns.decode(
                row, table: "customerOrder", (String, Int, String, String?, Date, Date).self)
            orders[id] = (number, Customer(name: name, userID: userID), PickupWindow(start: start, end: end))
        }
        var lines: [String: [OrderLine]] = [:]
        for row in try await connection.rows(
            "\(unescaped: selectLine) WHERE orderId = ANY(\(orderIDs)) ORDER BY orderId, position", logger: logger)
        {
            let (orderID, line) = try line(row)
            lines[orderID, default: []].append(line)
        }
        return try tickets.map { ticket in
            guard let order = orders[ticket.orderID] else {
                throw StoredRow.invalid(table: "ticket", id: ticket.id, "its order '\(ticket.orderID)' does not exist")
            }
            return TicketView(
                ticket: ticket, orderNumber: order.number, customer: order.customer, pickup: order.pickup,
                lines: (lines[ticket.orderID] ?? []).filter { $0.station == ticket.station })
        }
    }
}
