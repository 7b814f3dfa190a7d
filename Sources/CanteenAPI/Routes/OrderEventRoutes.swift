import CanteenCore
import CanteenJSON
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /v1/orders/{id}/events`: an order's status changes as Server-Sent Events, for the kiosk
/// token that placed it, ops and the kitchens of its café.
///
/// Each event's `id:` is its sequence (increasing); a client reconnecting with `Last-Event-ID`
/// gets the events after it, each once. Without it, the stream starts with the order's history.
/// A comment is sent every `TicketFeed.heartbeat` while nothing happens; the stream ends after
/// the order is picked up or cancelled, and a finished order with nothing left to send answers
/// 204 (which tells an `EventSource` to stop reconnecting).
struct OrderEventRoutes {
    let services: APIServices

    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")!

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/orders/:orderId/events") { request, context in try await stream(request, context) }
    }

    func stream(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("orderId")
        _ = try context.requireToken()
        let lastEventID = try Self.lastEventID(request)
        // Follow before reading: an event committed between the read and the stream is kept.
        let follower = services.feed.follow(orderID: id)
        guard let followed = try await services.orderEvents.followedOrder(id: id) else {
            throw CanteenError.notFound(.order, id)
        }
        try context.requireFollower(of: followed)
        guard let cafe = try await services.cafes.cafe(id: followed.order.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, followed.order.cafeID)
        }
        let history = try await services.orderEvents.events(orderID: id, after: lastEventID ?? 0)
        let finished = OrderEventType(reaching: followed.order.status).isFinal
        if history.isEmpty && finished { return Response(status: .noContent) }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        var headers = presentation.headers
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        // HEAD: the stream's head alone (its body lasts until the order is picked up).
        if request.method == .head { return Response(status: .ok, headers: headers) }
        let stream = OrderEventStream(
            follower: follower, order: followed.order, finished: finished, history: history,
            lastEventID: lastEventID ?? 0, events: services.orderEvents, cafe: cafe,
            presentation: presentation, heartbeat: services.feed.heartbeat)
        return Response(
            status: .ok, headers: headers, body: ResponseBody { writer in try await stream.write(to: &writer) })
    }

    /// `Last-Event-ID`: a sequence this stream gave out (a whole number), or nil.
    static func lastEventID(_ request: Request) throws(CanteenError) -> Int64? {
        guard let text = request.headers[lastEventIDHeader] else { return nil }
        guard let sequence = Int64(text.trimmingCharacters(in: .whitespaces)), sequence >= 0 else {
            throw CanteenError(
                .malformed, code: .invalidCursor,
                message: "Last-Event-ID '\(text.prefix(40))' is not an event id this stream gave out",
                field: "Last-Event-ID")
        }
        return sequence
    }
}

/// The body of one order's event stream.
struct OrderEventStream: Sendable {
    let follower: OrderFollower
    /// The order as read when the stream began.
    let order: Order
    let finished: Bool
    /// The events after `lastEventID` read when the stream began.
    let history: [OrderEvent]
    let lastEventID: Int64
    let events: any OrderEventRepository
    let cafe: Cafe
    let presentation: Presentation
    let heartbeat: Duration

    /// Streams until the order is finished, the client goes away or the server shuts down
    /// (the server waits for open requests: a stream must end for it to stop).
    func write(to writer: inout any ResponseBodyWriter) async throws {
        // Done following when the stream ends, however it ends (not when the answer is freed).
        defer { follower.stop() }
        try await withGracefulShutdownHandler {
            try await stream(to: &writer)
        } onGracefulShutdown: { [follower] in
            follower.stop()
        }
    }

    private func stream(to writer: inout any ResponseBodyWriter) async throws {
        var last = lastEventID
        try await writer.write(ByteBuffer(string: ": following order \(order.id)\n\n"))
        if try await send(history, after: &last, to: &writer) || finished {
            try await writer.finish(nil)
            return
        }
        while let batch = await follower.next(until: .now + heartbeat) {
            if batch.isEmpty {
                try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                continue
            }
            var pending = batch.filter { $0.sequence > last }.sorted { $0.sequence < $1.sequence }
            guard let first = pending.first else { continue }
            // Each event names the one before it: a gap (events published out of order, a client's
            // Last-Event-ID that is no event of this order) is filled from the database.
            let gap =
                (first.previousSequence ?? 0) != last
                || zip(pending, pending.dropFirst()).contains { $1.previousSequence != $0.sequence }
            if gap { pending = try await events.events(orderID: order.id, after: last) }
            if try await send(pending, after: &last, to: &writer) { break }
        }
        try await writer.finish(nil)
    }

    /// Writes `events` in order; true when the last one written was final.
    private func send(
        _ events: [OrderEvent], after last: inout Int64,
        to writer: inout any ResponseBodyWriter
    ) async throws -> Bool {
        for event in events where event.sequence > last {
            let data = JSONWriter.encode(
                OrderEventDTO(event, order: order, cafe: cafe, presentation: presentation),
                capacity: 2048)
            var buffer = ByteBuffer(string: "id: \(event.sequence)\nevent: \(event.type.rawValue)\ndata: ")
            buffer.writeBytes(data)
            buffer.writeString("\n\n")
            try await writer.write(buffer)
            last = event.sequence
            if event.type.isFinal { return true }
        }
        return false
    }
}

extension CanteenRequestContext {
    /// Who may read an order, follow it (long-poll, event stream) or, if also kiosk or ops, cancel
    /// it: the kiosk token that placed it, ops, the kitchens serving its café and its own user's
    /// token; 403 for anyone else, the same on every one of these routes.
    func requireFollower(of order: FollowedOrder) throws(CanteenError) {
        let token = try requireToken()
        switch token.role {
        case .ops:
            return
        case .kitchen:
            try requireAccess(to: order.order.cafeID)
        case .kiosk:
            guard token.id == order.placedBy else {
                throw CanteenError(
                    .forbidden, code: .forbidden,
                    message: "only the kiosk token that placed this order, ops and its café's kitchen may follow it",
                    parameters: ["role": token.role.rawValue])
            }
        case .user:
            guard let userID = order.order.customer.userID, userID == token.userID else {
                throw CanteenError(
                    .forbidden, code: .forbidden, message: "a user token follows its own user's orders only")
            }
        case .metrics:
            throw .metricsOnly
        }
    }
}
