import CanteenCore
import Foundation
import Hummingbird

/// The kitchen: the ticket feed of a café (cursor, station filter, long-poll) and status moves.
struct TicketRoutes {
    let services: APIServices

    /// The longest a display may long-poll, in seconds.
    static let maxWait = 30

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/tickets") { request, context in try await feed(request, context) }
        routes.on(.post, "/v1/tickets/:ticketId/status") { request, context in try await move(request, context) }
    }

    /// `?after=CURSOR&station=S&wait=SECONDS`: tickets changed after the cursor (the open
    /// tickets without one), at most `TicketFeed.pageSize`; with `wait`, answers as soon as a
    /// change arrives or empty at the deadline. `If-None-Match` with the cursor a display holds
    /// answers 304 while nothing changed.
    /// Kitchen and ops read it; so may a kiosk of the café (its pickup board), which can never
    /// move a ticket.
    func feed(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        try context.require(.kitchen, .ops, .kiosk, cafe: cafeID)
        let query = try FeedQuery(request.uri.queryParameters)
        guard let cafe = try await services.cafes.cafe(id: cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        let known = request.headers.value(of: .ifNoneMatch).flatMap(EntityTags.cursor(ifNoneMatch:))
        let answer = try await services.feed.page(
            cafe: cafe, after: query.after, station: query.station, known: known,
            wait: .seconds(query.wait), presentation: presentation)
        switch answer {
        case .unchanged(let cursor):
            var headers = presentation.headers
            headers.setValidator(EntityTags.tag(cursor))
            return Response(status: .notModified, headers: headers)
        case .page(let page):
            // The page's own buffer and headers, shared by every display answered with it.
            return Response(status: .ok, headers: page.headers, body: ResponseBody(byteBuffer: page.body))
        }
    }

    /// `{"status": "preparing" | "ready" | "picked_up" | "cancelled"}` by the café's kitchen or ops.
    func move(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("ticketId")
        try context.require(.kitchen, .ops)
        var request = request
        let body = try await request.jsonBody()
        let problems = ValidationProblems()
        var status: TicketStatus?
        if var reader = JSONObjectReader(body, path: "", problems: problems) {
            if let text = reader.string("status") {
                status = TicketStatus(rawValue: text)
                if status == nil {
                    problems.add(
                        "status",
                        "'\(text)' is not one of \(TicketStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            reader.finish()
        }
        try problems.throwIfAny()
        guard let current = try await services.tickets.ticket(id: id) else { throw CanteenError.notFound(.ticket, id) }
        try context.requireAccess(to: current.ticket.cafeID)
        let moved = try await services.tickets.moveTicket(id: id, to: status!)
        guard let cafe = try await services.cafes.cafe(id: moved.ticket.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, moved.ticket.cafeID)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        return JSONResponse.make(
            writing: TicketDTO(moved, cafe: cafe, presentation: presentation),
            headers: presentation.headers)
    }
}

/// The feed's query parameters, checked.
struct FeedQuery {
    var after: Int64?
    var station: String?
    var wait: Int

    /// - Parameter maxWait: the longest `wait` the route allows, in seconds.
    init(_ parameters: Parameters, maxWait: Int = TicketRoutes.maxWait) throws(CanteenError) {
        if let text = parameters.get("after") {
            guard let cursor = Int64(text), cursor >= 0 else {
                throw CanteenError(
                    .malformed, code: .invalidCursor,
                    message: "'\(text)' is not a cursor this feed gave out", field: "after")
            }
            after = cursor
        }
        if let text = parameters.get("station") {
            guard Identifier.isValid(text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery, message: "'\(text)' is not a station id", field: "station")
            }
            station = text
        }
        wait = 0
        if let text = parameters.get("wait") {
            guard let seconds = Int(text), (0...maxWait).contains(seconds) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "wait is a whole number of seconds from 0 to \(maxWait)", field: "wait")
            }
            wait = seconds
        }
    }
}
