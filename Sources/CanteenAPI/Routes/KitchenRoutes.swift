import CanteenCore
import Foundation
import Hummingbird

/// The kitchen's timing: live station times, and what is left of limited dishes.
struct KitchenRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/kitchen") { request, context in try await times(request, context) }
        routes.on(.put, "/v1/cafes/:cafeId/menu/items/:itemId/remaining") { request, context in
            try await setRemaining(request, context)
        }
    }

    /// Per station: held and open tickets, the median and p90 time from fired to ready over
    /// the last hour, and the queue in seconds of prep work. Any token serving the café.
    func times(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.requireAccess(to: cafeID)
        guard let menu = try await services.cafes.menu(cafeID: cafeID) else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        let load = try await services.kitchen.kitchenLoad(cafeID: cafeID)
        var stations = menu.cafe.kitchen.stations.map(\.id)
        for item in menu.menu.items where !stations.contains(item.station) { stations.append(item.station) }
        let presentation = services.presenter.presentation(for: request, cafe: menu.cafe)
        return try JSONResponse.make(
            KitchenTimesDTO(
                cafeId: cafeID, at: load.now,
                timed: KitchenTiming(cafe: menu.cafe, menu: menu.menu).isTimed,
                stations: StationTimes.report(load, stations: stations).map(KitchenTimesDTO.Station.init)),
            headers: presentation.headers)
    }

    /// `{"remaining": N}`: what is left today of a limited dish, set by ops or the café's kitchen.
    func setRemaining(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        let itemID = try context.parameters.path("itemId")
        try context.require(.ops, .kitchen, cafe: cafeID)
        var request = request
        let body = try await request.jsonBody()
        let problems = ValidationProblems()
        var remaining: Int64?
        if var reader = JSONObjectReader(body, path: "", problems: problems) {
            remaining = reader.integer("remaining", in: 0...DailyStock.quantityRange.upperBound)
            reader.finish()
        }
        try problems.throwIfAny()
        let stock = try await services.dailyStock.setRemaining(
            cafeID: cafeID, itemID: itemID,
            remaining: Int(remaining ?? 0), audit: context.audit("item.remaining", "item", itemID, cafe: cafeID))
        return try JSONResponse.make(
            ItemStockDTO(
                cafeId: stock.cafeID, itemId: stock.itemID, date: stock.date.description,
                dailyQuantity: stock.dailyQuantity, remaining: stock.remaining))
    }
}

/// `GET /v1/cafes/{cafeId}/kitchen`.
struct KitchenTimesDTO: Encodable {
    struct Station: Encodable {
        let id: String
        let heldTickets: Int
        let openTickets: Int
        let finishedLastHour: Int
        let medianSeconds: Int?
        let p90Seconds: Int?
        let queueSeconds: Int
        let cooks: Int
        let speed: Double

        init(_ times: StationTimes) {
            id = times.station
            heldTickets = times.heldTickets
            openTickets = times.openTickets
            finishedLastHour = times.finishedLastHour
            medianSeconds = times.medianSeconds
            p90Seconds = times.p90Seconds
            queueSeconds = times.queueSeconds
            cooks = times.throughput.cooks
            speed = (times.throughput.speed * 100).rounded() / 100
        }
    }

    let cafeId: String
    let at: Date
    /// Whether the kitchen is timed (a station or an item has a prep time).
    let timed: Bool
    let stations: [Station]
}

/// `PUT /v1/cafes/{cafeId}/menu/items/{itemId}/remaining`.
struct ItemStockDTO: Encodable {
    let cafeId: String
    let itemId: String
    let date: String
    let dailyQuantity: Int
    let remaining: Int
}
