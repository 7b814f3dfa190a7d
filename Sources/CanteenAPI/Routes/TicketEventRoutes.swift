import CanteenCore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/cafes/{cafeId}/tickets/events`: a café's kitchen feed as Server-Sent Events, for the
/// kitchen displays and pickup boards (`EventSource`) and any client that holds a stream open.
///
/// `?station=` keeps one station's tickets; `?lang=` chooses the language as `Accept-Language`
/// does (an `EventSource` cannot send headers). The stream resumes after `Last-Event-ID`, else
/// after `?after=` (a new `EventSource` cannot send `Last-Event-ID`: only the browser's own
/// reconnection does, so a page that opens a new one after an outage says where it stands in
/// the query), else it starts with the open tickets. Who may read it is who may read the ticket
/// feed: the café's kitchen and kiosk tokens, and ops (see `StreamCredential` for how a page
/// presents its token).
struct TicketEventRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/cafes/:cafeId/tickets/events") { request, context in try await stream(request, context) }
    }

    func stream(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let cafeID = try context.parameters.path("cafeId")
        guard let credential = StreamCredential(request) else { throw CanteenError.unauthenticated }
        let context = try await credential.authenticated(request, context, tokens: services.tokens)
        try context.require(.kitchen, .ops, .kiosk, cafe: cafeID)
        let query = try TicketEventQuery(request.uri.queryParameters)
        let lastEventID = try OrderEventRoutes.lastEventID(request)
        guard let cafe = try await services.cafes.cafe(id: cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, cafeID)
        }
        let presentation = services.presenter.presentation(
            acceptLanguage: query.language ?? request.headers.value(of: .acceptLanguage), cafe: cafe)
        var headers = presentation.headers
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        // A proxy that buffers answers (nginx) would hold the events back.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        // HEAD: the stream's head alone (its body would never end).
        if request.method == .head { return Response(status: .ok, headers: headers) }
        let tokens = services.tokens
        let secret = credential.secret
        let stream = TicketEventStream(
            feed: services.feed, cafe: cafe, station: query.station, presentation: presentation,
            cursor: lastEventID ?? query.after, heartbeat: services.feed.heartbeat,
            tokenIsLive: {
                // A database that cannot be read right now ends no stream.
                do { return try await tokens.authenticate(secret: secret) != nil } catch { return true }
            })
        return Response(
            status: .ok, headers: headers, body: ResponseBody { writer in try await stream.write(to: &writer) })
    }
}

/// The event stream's query parameters, checked.
struct TicketEventQuery {
    var after: Int64?
    var station: String?
    var language: String?

    init(_ parameters: Parameters) throws(CanteenError) {
        let feed = try FeedQuery(parameters)
        after = feed.after
        station = feed.station
        if let text = parameters.get("lang") {
            guard LanguageTag.isWellFormed(text) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "'\(text.prefix(40))' is not a language tag such as en or ar-KW", field: "lang")
            }
            language = text
        }
    }
}
