import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// What is happening now in every café (ops), for the console's overview: open orders and tickets
/// per station and status, the oldest open ticket, how full the next pickup windows are, and the
/// webhook endpoints that are failing. Read from the same stores as the rest of the API.
struct OverviewRoutes {
    let services: APIServices

    /// How many of the next pickup windows each café shows.
    static let windowsShown = 4
    /// How many recent deliveries of each endpoint are looked at.
    static let deliveriesLookedAt = 20

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/overview") { request, context in try await overview(request, context) }
    }

    func overview(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let now = services.clock()
        var cafes: [JSONValue] = []
        for versioned in try await services.cafes.cafes() {
            cafes.append(try await cafeNow(versioned.cafe, request: request, now: now))
        }
        var failing: [JSONValue] = []
        for endpoint in try await services.webhooks.endpoints() {
            let deliveries = try await services.webhooks.deliveries(
                endpointID: endpoint.id,
                limit: Self.deliveriesLookedAt)
            let failed = deliveries.filter { $0.state == .failed }.count
            let retrying = deliveries.filter { $0.state == .pending && !$0.attempts.isEmpty }.count
            guard failed + retrying > 0 else { continue }
            let lastError = deliveries.flatMap(\.attempts).filter { $0.error != nil }.max {
                $0.attemptedAt < $1.attemptedAt
            }
            failing.append(
                .object([
                    "id": .string(endpoint.id), "url": .string(endpoint.url),
                    "cafeId": endpoint.cafeID.map(JSONValue.string) ?? .null,
                    "failed": .int(Int64(failed)), "retrying": .int(Int64(retrying)),
                    "lastError": lastError?.error.map(JSONValue.string) ?? .null,
                    "lastErrorAt": lastError.map { .string(RFC3339.utcSeconds($0.attemptedAt)) } ?? .null,
                ]))
        }
        let body: JSONValue = .object([
            "at": .string(RFC3339.utcSeconds(now)), "cafes": .array(cafes), "failingWebhooks": .array(failing),
        ])
        return JSONResponse.make(encoded: body.encoded())
    }

    private func cafeNow(_ cafe: Cafe, request: Request, now: Date) async throws -> JSONValue {
        let open = try await services.tickets.openTicketCounts(cafeID: cafe.id)
        let oldest = open.oldestNotReady
        let today = LocalDate(now, in: cafe.calendar)
        let windows = try await services.pickupCapacity.pickupWindows(of: cafe, date: today)
            .filter { $0.window.end > now }.prefix(Self.windowsShown)
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        return .object([
            "id": .string(cafe.id), "name": .string(presentation.text(cafe.names)),
            "timeZone": .string(cafe.timeZone.identifier), "openNow": .bool(cafe.isOpen(at: now)),
            "openOrders": .int(Int64(open.orders)),
            "openTickets": .int(Int64(open.tickets)),
            "stations": .array(
                open.byStation.keys.sorted().map { station in
                    let statuses = open.byStation[station] ?? [:]
                    return .object([
                        "station": .string(station),
                        "statuses": .object(
                            Dictionary(uniqueKeysWithValues: statuses.map { ($0.key.rawValue, .int(Int64($0.value))) })),
                    ])
                }),
            "oldestOpenTicketAt": oldest.map { .string(RFC3339.utcSeconds($0)) } ?? .null,
            "oldestOpenTicketSeconds": oldest.map { .int(Int64(now.timeIntervalSince($0).rounded(.down))) } ?? .null,
            "nextWindows": .array(
                windows.map { window in
                    .object([
                        "start": .string(RFC3339.string(window.window.start, timeZone: cafe.timeZoneValue)),
                        "end": .string(RFC3339.string(window.window.end, timeZone: cafe.timeZoneValue)),
                        "label": .string(presentation.windowLabel(window.window, cafe: cafe)),
                        "capacity": .int(Int64(window.capacity)), "remaining": .int(Int64(window.remaining)),
                    ])
                }),
        ])
    }
}
