import Beacons
import CanteenCore
import Foundation
import Hummingbird

/// `POST /v1/locate` (kiosk or ops): which café a device's beacon sightings place it in, with
/// the ranging engine's hysteresis around `currentCafeId`. Unregistered beacons are ignored.
struct LocateRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/locate") { request, context in try await locate(request, context) }
    }

    func locate(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.kiosk, .ops)
        var request = request
        let body = try await request.jsonBody()
        let input = try LocateRequest.parse(body, now: services.clock(), sightingsRequired: true)
        let registry = try await services.beacons.registry()
        services.metrics.beaconSightings(input.sightings ?? [], registry: registry)
        let result = BeaconLocator.locate(
            sightings: input.sightings ?? [], registry: registry,
            currentCafeID: input.currentCafeID)
        return try JSONResponse.make(LocateResultDTO(result: result))
    }
}
