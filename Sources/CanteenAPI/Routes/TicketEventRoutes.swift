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
        routes.on(.get, "/v1/cafes/:cafeId/tickets/events") { request, context in
            try await stream(TicketStreamOpening(request, context), context)
        }
    }

    /// The stream's answer. Everything the request says is read first, synchronously
    /// (`TicketStreamOpening`): the connection's task keeps the most stack it ever used for as
    /// long as the stream stays open, so this frame holds only what crosses its two waits (see
    /// docs/benchmarks.md, "what an idle connection holds").
    @inline(never)
    func stream(_ opening: TicketStreamOpening, _ context: CanteenRequestContext) async throws -> Response {
        try await opening.authorize(context, tokens: services.tokens)
        let asked = try opening.asked.get()
        guard let cafe = try await services.cafes.cafe(id: opening.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, opening.cafeID)
        }
        return opening.response(cafe: cafe, asked: asked, services: services)
    }
}

/// What a request for a ticket event stream asks, read before anything is awaited.
struct TicketStreamOpening {
    let cafeID: String
    let credential: StreamCredential
    /// Whether the request came from this server's own pages (a token cookie counts only then).
    let isSameOrigin: Bool
    /// The query and `Last-Event-ID`, checked, or what is wrong with them: answered only after
    /// the caller is known to be allowed (a caller who may not read the stream is told so first).
    let asked: Result<Asked, CanteenError>
    let acceptLanguage: String?

    struct Asked {
        let query: TicketEventQuery
        let lastEventID: Int64?
    }
    let isHead: Bool

    /// Not inlined, here and in `response`: a synchronous function's locals live on the thread's
    /// stack, not in the task's frames.
    @inline(never)
    init(_ request: Request, _ context: CanteenRequestContext) throws {
        cafeID = try context.parameters.path("cafeId")
        guard let credential = StreamCredential(request) else { throw CanteenError.unauthenticated }
        self.credential = credential
        isSameOrigin = StreamCredential.isSameOrigin(request)
        asked = Result { () throws(CanteenError) in
            Asked(
                query: try TicketEventQuery(request.uri.queryParameters),
                lastEventID: try OrderEventRoutes.lastEventID(request))
        }
        acceptLanguage = request.headers.value(of: .acceptLanguage)
        isHead = request.method == .head
    }

    /// Who may read the stream is who may read the ticket feed: the café's kitchen and kiosk
    /// tokens, and ops.
    func authorize(_ context: CanteenRequestContext, tokens: any TokenRepository) async throws {
        let context = try await credential.authenticated(context, isSameOrigin: isSameOrigin, tokens: tokens)
        try context.require(.kitchen, .ops, .kiosk, cafe: cafeID)
    }

    @inline(never)
    func response(cafe: Cafe, asked: Asked, services: APIServices) -> Response {
        let query = asked.query
        let presentation = services.presenter.presentation(
            acceptLanguage: query.language ?? acceptLanguage, cafe: cafe)
        var headers = presentation.headers
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        // A proxy that buffers answers (nginx) would hold the events back.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        // HEAD: the stream's head alone (its body would never end).
        if isHead { return Response(status: .ok, headers: headers) }
        let tokens = services.tokens
        let secret = credential.secret
        let stream = TicketEventStream(
            feed: services.feed, cafe: cafe, station: query.station, presentation: presentation,
            cursor: asked.lastEventID ?? query.after, heartbeat: services.feed.heartbeat,
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
