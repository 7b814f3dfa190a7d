import CanteenCore
import Foundation
import Hummingbird

/// `GET /v1/cafes/{cafeId}/pickup-windows?date=YYYY-MM-DD&items=a,b` (café-local date, default
/// today). A window is unavailable when full, or (`kitchen_busy`) when the kitchen's queue
/// cannot have an order ready by its end: an order of `items` when given, else even the
/// quickest item of any station alone.
struct PickupWindowRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/pickup-windows") { request, context in try await list(request, context) }
    }

    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        guard let cafe = try await services.cafes.cafe(id: cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        let date: LocalDate
        if let text = request.uri.queryParameters.get("date") {
            guard let parsed = LocalDate(parsing: text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery, message: "'\(text)' is not a date YYYY-MM-DD",
                    field: "date")
            }
            date = parsed
        } else {
            date = LocalDate(services.clock(), in: cafe.calendar)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        let windows = try await services.pickupCapacity.pickupWindows(of: cafe, date: date)
        let busy = try await busyWindows(
            windows.map(\.window), cafeID: cafeID,
            items: request.uri.queryParameters.get("items"))
        return try JSONResponse.make(
            PickupWindowsDTO(
                cafeId: cafeID, date: date.description, timeZone: cafe.timeZone.identifier,
                capacityUnit: cafe.pickup.capacityUnit.rawValue,
                windows: windows.map {
                    let window = PickupWindowDTO($0.window, cafe: cafe, presentation: presentation)
                    let reason =
                        $0.remaining <= 0
                        ? ErrorCode.pickupWindowFull.rawValue
                        : busy.contains($0.window.start) ? ErrorCode.kitchenBusy.rawValue : nil
                    return .init(
                        start: window.start, end: window.end, label: window.label,
                        capacity: $0.capacity, remaining: $0.remaining, available: reason == nil,
                        unavailableReason: reason)
                }),
            headers: presentation.headers)
    }

    /// The starts of the windows a timed kitchen cannot meet (none for an untimed one).
    private func busyWindows(_ windows: [PickupWindow], cafeID: String, items: String?) async throws -> Set<Date> {
        guard let menu = try await services.cafes.menu(cafeID: cafeID) else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        var itemIDs: [String]?
        if let items {
            let ids = items.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard (1...OrderRequest.maxLines).contains(ids.count) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "items lists 1 to \(OrderRequest.maxLines) item ids, comma-separated",
                    field: "items")
            }
            for id in ids where menu.menu.item(id) == nil {
                throw CanteenError(
                    .invalid, code: .unknownItem, message: "no item '\(id.prefix(64))' on this menu",
                    field: "items", parameters: ["item": String(id.prefix(64))])
            }
            itemIDs = ids
        }
        let timing = KitchenTiming(cafe: menu.cafe, menu: menu.menu)
        guard timing.isTimed, !windows.isEmpty else { return [] }
        let load = try await services.kitchen.kitchenLoad(cafeID: cafeID)
        return KitchenPlan.busyWindows(windows, timing: timing, load: load, itemIDs: itemIDs)
    }
}
