import CanteenCore
import Foundation
import Hummingbird

/// `POST /v1/users/{userId}/cafe` (kiosk or ops): the café to open for a user, why, and the
/// ETag of its menu (the value `GET /v1/cafes/{id}/menu` answers), so the kiosk can fetch or
/// revalidate the menu next. The body is optional: `{"sightings": [...], "currentCafeId"}`.
struct CafeResolutionRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/users/:userId/cafe") { request, context in try await resolve(request, context) }
    }

    func resolve(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let userID = try PreferenceRoutes.authorizedUser(context)
        let token = try context.requireToken()
        var request = request
        let now = services.clock()
        let input =
            try await request.optionalJSONBody().map {
                try LocateRequest.parse($0, now: now, sightingsRequired: false)
            } ?? .empty
        // The client's address decides "nearest" without sightings; it is not kept.
        let address = services.identity.clientAddresses.client(peer: context.remoteAddress, headers: request.headers)
        let choice = try await CafeResolver(services: services).resolve(
            userID: userID, request: input, token: token,
            clientAddress: address)
        guard let menu = try await services.cafes.menu(cafeID: choice.cafe.cafe.id) else {
            throw CanteenError.notFound(.cafe, choice.cafe.cafe.id)
        }
        let presentation = services.presenter.presentation(for: request, cafe: menu.cafe)
        let etag = MenuDTO.etag(
            menu, remaining: try await services.remaining(of: menu, now: now),
            variant: presentation.variant, now: now)
        return try JSONResponse.make(
            CafeChoiceDTO(
                cafe: CafeDTO(choice.cafe, presentation: presentation, now: now),
                reason: choice.reason.rawValue, detail: choice.detail, menuETag: etag),
            headers: presentation.headers)
    }
}

/// `{"cafe": {...}, "reason": "preferred" | "nearest" | "fallback", "detail", "menuETag"}`.
struct CafeChoiceDTO: Encodable {
    let cafe: CafeDTO
    let reason: String
    let detail: String
    let menuETag: String
}
