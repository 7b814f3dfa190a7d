import CanteenCore
import CanteenJSON
import Foundation
import HTTPTypes
import Hummingbird

/// A café's reports (ops): sales by item, hour or day, kitchen times, pickup windows. In the
/// café's time zone and currency, money in exact minor units; JSON, or CSV with `Accept: text/csv`.
struct ReportRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/reports/sales") { request, context in try await sales(request, context) }
        routes.on(.get, "/v1/cafes/:cafeId/reports/kitchen") { request, context in try await kitchen(request, context) }
        routes.on(.get, "/v1/cafes/:cafeId/reports/windows") { request, context in try await windows(request, context) }
    }

    /// `?from=YYYY-MM-DD&to=YYYY-MM-DD&by=item|hour|day` (café-local dates, both included; `by`
    /// defaults to `day`).
    func sales(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafe = try await reportCafe(context)
        let query = request.uri.queryParameters
        let period = try Self.period(query)
        var grouping = SalesReport.Grouping.day
        if let text = query.get("by") {
            guard let chosen = SalesReport.Grouping(rawValue: text) else {
                throw CanteenError(.invalid, code: .invalidQuery, message: "by is one of item, hour, day", field: "by")
            }
            grouping = chosen
        }
        let report =
            grouping == .item
            ? SalesReport.byItem(try await services.reports.itemSales(cafeID: cafe.id, period: period))
            : SalesReport.byTime(
                try await services.reports.salesBuckets(cafeID: cafe.id, period: period),
                grouping: grouping, period: period, timeZone: cafe.timeZoneValue,
                currency: cafe.currency.code)
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        let keyName = grouping == .day ? "date" : grouping.rawValue
        if CSVTable.isWanted(by: request) {
            var table = CSVTable(
                header: [keyName] + (grouping == .item ? ["name"] : []) + [
                    "currency", "orders", "items", "revenue", "cancelled_orders", "cancelled_items",
                    "cancelled_revenue",
                ])
            for row in report.rows {
                table.append(
                    [row.key] + (grouping == .item ? [row.names.map(presentation.text) ?? ""] : []) + [
                        row.currency, String(row.sold.orders), String(row.sold.items), String(row.sold.amount),
                        String(row.cancelled.orders), String(row.cancelled.items), String(row.cancelled.amount),
                    ])
            }
            return table.response(headers: presentation.headers)
        }
        let rows: [JSONValue] = report.rows.map { row in
            var object: [String: JSONValue] = [
                keyName: grouping == .hour ? .int(Int64(row.key) ?? 0) : .string(row.key),
                "currency": .string(row.currency), "orders": .int(Int64(row.sold.orders)),
                "items": .int(Int64(row.sold.items)), "revenue": .int(row.sold.amount),
                "cancelledOrders": .int(Int64(row.cancelled.orders)),
                "cancelledItems": .int(Int64(row.cancelled.items)),
                "cancelledRevenue": .int(row.cancelled.amount),
            ]
            if let names = row.names { object["name"] = .string(presentation.text(names)) }
            return .object(object)
        }
        return Self.json(
            Self.heading(cafe, period: period).merging([
                "by": .string(grouping.rawValue), "rows": .array(rows),
            ]) { _, new in new }, headers: presentation.headers)
    }

    /// `?from=&to=`: per station, tickets and the time from placed to ready (p50, p90, max, in
    /// seconds), and the orders ready by the start of their pickup window.
    func kitchen(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafe = try await reportCafe(context)
        let period = try Self.period(request.uri.queryParameters)
        let figures = try await services.reports.kitchenFigures(cafeID: cafe.id, period: period)
        let report = KitchenReport(tickets: figures.tickets, orders: figures.orders)
        let optional = { (value: Int64?) in value.map(JSONValue.int) ?? .null }
        if CSVTable.isWanted(by: request) {
            var table = CSVTable(header: [
                "station", "tickets", "cancelled", "ready", "ready_by_window_start",
                "p50_seconds", "p90_seconds", "max_seconds",
            ])
            for station in report.stations {
                table.append([
                    station.station, String(station.tickets), String(station.cancelled), String(station.ready),
                    String(station.readyByWindowStart), station.p50Seconds.map(String.init) ?? "",
                    station.p90Seconds.map(String.init) ?? "", station.maxSeconds.map(String.init) ?? "",
                ])
            }
            return table.response()
        }
        let stations: [JSONValue] = report.stations.map { station in
            .object([
                "station": .string(station.station), "tickets": .int(Int64(station.tickets)),
                "cancelled": .int(Int64(station.cancelled)), "ready": .int(Int64(station.ready)),
                "readyByWindowStart": .int(Int64(station.readyByWindowStart)),
                "p50Seconds": optional(station.p50Seconds), "p90Seconds": optional(station.p90Seconds),
                "maxSeconds": optional(station.maxSeconds),
            ])
        }
        let orders = report.orders
        return Self.json(
            Self.heading(cafe, period: period).merging([
                "stations": .array(stations),
                "orders": .object([
                    "orders": .int(Int64(orders.orders)), "cancelled": .int(Int64(orders.cancelled)),
                    "ready": .int(Int64(orders.ready)), "readyByWindowStart": .int(Int64(orders.readyByWindowStart)),
                ]),
            ]) { _, new in new })
    }

    /// `?date=YYYY-MM-DD` (café-local, default today): every pickup window of the day with its
    /// capacity, the units used, the orders taken (cancelled apart) and those refused as full.
    func windows(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafe = try await reportCafe(context)
        var date = LocalDate(services.clock(), in: cafe.calendar)
        if let text = request.uri.queryParameters.get("date") {
            guard let parsed = LocalDate(parsing: text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery, message: "date is a date such as 2026-11-23",
                    field: "date")
            }
            date = parsed
        }
        let all = cafe.pickupWindows(on: date)
        var figures: [Date: WindowFigures] = [:]
        if let first = all.first, let last = all.last {
            figures = try await services.reports.windowFigures(cafeID: cafe.id, start: first.start, end: last.end)
        }
        let report = WindowsReport(cafe: cafe, windows: all, figures: figures)
        let time = { (instant: Date) in RFC3339.string(instant, timeZone: cafe.timeZoneValue) }
        if CSVTable.isWanted(by: request) {
            var table = CSVTable(header: [
                "start", "end", "capacity", "capacity_unit", "used", "orders", "cancelled",
                "refused",
            ])
            for row in report.rows {
                table.append([
                    time(row.window.start), time(row.window.end), String(row.capacity),
                    report.capacityUnit.rawValue, String(row.figures.used), String(row.figures.orders),
                    String(row.figures.cancelled), String(row.figures.refused),
                ])
            }
            return table.response()
        }
        let rows: [JSONValue] = report.rows.map { row in
            .object([
                "start": .string(time(row.window.start)), "end": .string(time(row.window.end)),
                "capacity": .int(Int64(row.capacity)), "used": .int(Int64(row.figures.used)),
                "orders": .int(Int64(row.figures.orders)), "cancelled": .int(Int64(row.figures.cancelled)),
                "refused": .int(Int64(row.figures.refused)),
            ])
        }
        return Self.json([
            "cafeId": .string(cafe.id), "date": .string(date.description),
            "timeZone": .string(cafe.timeZone.identifier), "capacityUnit": .string(report.capacityUnit.rawValue),
            "windows": .array(rows),
        ])
    }

    // MARK: - Shared

    /// The café of the path, for an ops token (401/403/404 otherwise).
    private func reportCafe(_ context: CanteenRequestContext) async throws -> Cafe {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.ops, cafe: cafeID)
        guard let cafe = try await services.cafes.cafe(id: cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        return cafe
    }

    /// `from` and `to`, both required café-local dates.
    static func period(_ query: Parameters) throws -> ReportPeriod {
        func date(_ name: String) throws -> LocalDate {
            guard let text = query.get(name) else {
                throw CanteenError(
                    .invalid, code: .missingField, message: "\(name) is required (a date such as 2026-11-23)",
                    field: name)
            }
            guard let date = LocalDate(parsing: text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "'\(text.prefix(40))' is not a date such as 2026-11-23", field: name)
            }
            return date
        }
        return try ReportPeriod(from: try date("from"), to: try date("to"))
    }

    private static func heading(_ cafe: Cafe, period: ReportPeriod) -> [String: JSONValue] {
        [
            "cafeId": .string(cafe.id), "from": .string(period.from.description), "to": .string(period.to.description),
            "timeZone": .string(cafe.timeZone.identifier), "currency": .string(cafe.currency.code),
            "currencyExponent": .int(Int64(cafe.currency.minorUnits)),
        ]
    }

    private static func json(_ object: [String: JSONValue], headers: HTTPFields = [:]) -> Response {
        JSONResponse.make(encoded: JSONValue.object(object).encoded(), headers: CSVTable.varyingOnAccept(headers))
    }
}
