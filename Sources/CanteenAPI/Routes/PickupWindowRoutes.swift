import CanteenCore
import Hummingbird

/// `GET /v1/cafes/{cafeId}/pickup-windows?date=YYYY-MM-DD` (café-local date, default today).
struct PickupWindowRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/pickup-windows") { request, context in try await list(request, context) }
    }

    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        guard let cafe = try await services.cafes.cafe(id: cafeID)?.cafe else { throw CanteenError.notFound(.cafe, cafeID) }
        let date: LocalDate
        if let text = request.uri.queryParameters.get("date") {
            guard let parsed = LocalDate(parsing: text) else {
                throw CanteenError(.invalid, code: .invalidQuery, message: "'\(text)' is not a date YYYY-MM-DD",
                                   field: "date")
            }
            date = parsed
        } else {
            date = LocalDate(services.clock(), in: cafe.calendar)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        let windows = try await services.pickupCapacity.pickupWindows(of: cafe, date: date)
        return try JSONResponse.make(PickupWindowsDTO(
            cafeId: cafeID, date: date.description, timeZone: cafe.timeZone.identifier,
            capacityUnit: cafe.pickup.capacityUnit.rawValue,
            windows: windows.map {
                let window = PickupWindowDTO($0.window, cafe: cafe, presentation: presentation)
                return .init(start: window.start, end: window.end, label: window.label,
                             capacity: $0.capacity, remaining: $0.remaining)
            }),
            headers: presentation.headers)
    }
}
