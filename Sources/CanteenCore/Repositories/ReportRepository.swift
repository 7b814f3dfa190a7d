import Foundation

/// Where reports are read from: the orders, tickets and order events Canteen stores, summed by
/// the database. Both stores answer the same questions with the same SQL shape.
public protocol ReportRepository: Sendable {
    /// The café's orders placed on the period's dates, by quarter hour.
    func salesBuckets(cafeID: String, period: ReportPeriod) async throws -> [SalesBucket]
    /// The café's order lines of the period's dates, by item.
    func itemSales(cafeID: String, period: ReportPeriod) async throws -> [ItemSales]
    /// The tickets of the café's orders placed on the period's dates, and how the orders fared.
    func kitchenFigures(cafeID: String, period: ReportPeriod) async throws -> (
        tickets: [ReportedTicket],
        orders: OrderReadiness
    )
    /// What happened in each of the windows that start in `start..<end`, by window start.
    func windowFigures(cafeID: String, start: Date, end: Date) async throws -> [Date: WindowFigures]
    /// Counts an order refused because the window starting at `windowStart` was full.
    func recordRefusal(cafeID: String, windowStart: Date) async throws
}
