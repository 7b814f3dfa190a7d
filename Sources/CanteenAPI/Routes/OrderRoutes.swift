import CanteenCore
import CanteenFormat
import CanteenJSON
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Orders: place (kiosk or ops for anyone, a person for themselves; idempotent), read, cancel.
struct OrderRoutes {
    let services: APIServices
    let gate: IdempotencyGate

    static let idempotencyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/orders") { request, context in try await place(request, context) }
        routes.on(.get, "/v1/orders/:orderId") { request, context in try await read(request, context) }
        routes.on(.post, "/v1/orders/:orderId/cancel") { request, context in try await cancel(request, context) }
    }

    /// Places an order under the request's `Idempotency-Key` (required, 1–255 characters).
    /// The store commits the order; its answer is rendered after the commit. A replay renders
    /// the order as it was placed, in the first answer's language.
    func place(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.require(.kiosk, .ops, .user)
        do {
            return try await placeCounted(request, context, token: token)
        } catch {
            let refusal = ErrorAnswers.canteenError(for: error)
            services.metrics.orderRefused(refusal.code)
            if let start = refusal.fullWindowStart, let cafeID = refusal.parameters["cafe"] {
                // Counted for the windows report; a failure to count never changes the answer.
                try? await services.reports.recordRefusal(cafeID: cafeID, windowStart: start)
            }
            throw error
        }
    }

    private func placeCounted(
        _ request: Request, _ context: CanteenRequestContext,
        token: AccessToken
    ) async throws -> Response {
        let key = try Self.idempotencyKey(request)
        return try await gate.run(tokenID: token.id, key: key) {
            var request = request
            let body = try await request.jsonBody()
            var orderRequest = try OrderRequest.parse(body)
            try context.requireAccess(to: orderRequest.cafeID)
            if token.role == .user { try Self.placeForSelf(&orderRequest, token: token) }
            if let code = orderRequest.couponCode { orderRequest.couponID = try services.coupons.couponID(code: code) }
            let fingerprint = Data(SHA256.hash(data: body.encoded()))
            let language = request.headers.value(of: .acceptLanguage).map {
                String(decoding: $0.utf8.prefix(AcceptLanguage.maximumLength), as: UTF8.self)
            }
            let placement: OrderPlacement
            do {
                placement = try await services.orders.placeOrder(
                    orderRequest,
                    key: IdempotencyKey(
                        tokenID: token.id, key: key, requestHash: fingerprint,
                        answerLanguage: language))
            } catch var error as CanteenError where error.code == .idempotencyKeyReused {
                error.field = Self.idempotencyHeader.rawName
                error.message = "this Idempotency-Key was already used with a different request"
                throw error
            }
            switch placement {
            case .placed(let order):
                services.metrics.orderPlaced(cafeID: order.cafeID)
                return try await answer(
                    order, acceptLanguage: language, status: .created,
                    headers: [.location: "/v1/orders/\(order.id)"])
            case .replayed(let order, let firstLanguage):
                services.metrics.orderReplayed()
                return try await answer(
                    order, acceptLanguage: firstLanguage, status: .created,
                    headers: [Self.replayedHeader: "true"])
            case .replayedAnswer(let body, let contentLanguage):
                services.metrics.orderReplayed()
                var headers: HTTPFields = [Self.replayedHeader: "true"]
                if let contentLanguage {
                    headers[.contentLanguage] = contentLanguage
                    headers[.vary] = "Accept-Language"
                }
                return JSONResponse.make(encoded: body, status: .created, headers: headers)
            }
        }
    }

    /// An order's answer in the language negotiated from `acceptLanguage` at its café.
    private func answer(
        _ order: Order, acceptLanguage: String?, status: HTTPResponse.Status,
        headers extra: HTTPFields
    ) async throws -> Response {
        guard let cafe = try await services.cafes.cafe(id: order.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, order.cafeID)
        }
        let presentation = services.presenter.presentation(acceptLanguage: acceptLanguage, cafe: cafe)
        var headers = presentation.headers
        for field in extra { headers[field.name] = field.value }
        return JSONResponse.make(
            writing: OrderDTO(order, cafe: cafe, presentation: presentation), status: status,
            headers: headers)
    }

    /// A person orders for themselves: the order's `customer.userId` is theirs (filled in when absent).
    static func placeForSelf(_ order: inout OrderRequest, token: AccessToken) throws(CanteenError) {
        guard let own = token.userID else { throw CanteenError.unauthenticated }
        if let named = order.customer.userID, named != own {
            throw CanteenError(
                .forbidden, code: .forbidden, message: "a person orders for themselves, not for '\(named.prefix(128))'",
                field: "customer.userId", parameters: ["role": token.role.rawValue])
        }
        order.customer.userID = own
    }

    static func idempotencyKey(_ request: Request) throws(CanteenError) -> String {
        guard let key = request.headers.value(of: idempotencyHeader) else {
            throw CanteenError(
                .malformed, code: .idempotencyKeyMissing,
                message: "POST /v1/orders needs an Idempotency-Key header (1–255 characters)",
                field: "Idempotency-Key")
        }
        guard (1...255).contains(key.count), key.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F })
        else {
            throw CanteenError(
                .malformed, code: .idempotencyKeyInvalid,
                message: "an Idempotency-Key is 1–255 visible ASCII characters", field: "Idempotency-Key")
        }
        return key
    }

    /// `?wait=SECONDS`: for the kiosk token that placed the order, ops and the kitchens of its
    /// café. The ETag is the order's version (its latest status change). With `If-None-Match`
    /// of the version a client holds: 304 while the status has not changed; with `wait`, the
    /// answer comes as soon as it changes, or 304 after that many seconds.
    func read(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("orderId")
        _ = try context.requireToken()
        let wait = try Self.waitSeconds(request.uri.queryParameters)
        let known = request.headers[.ifNoneMatch].flatMap(EntityTags.cursor(ifNoneMatch:))
        // Follow before reading: a change committed between the read and the wait is kept.
        let follower = wait > 0 && known != nil ? services.feed.follow(orderID: id) : nil
        guard let followed = try await services.orderEvents.followedOrder(id: id) else {
            throw CanteenError.notFound(.order, id)
        }
        try context.requireFollower(of: followed)
        var order = followed.order
        var version = followed.version
        if let known, known == version, let follower {
            let deadline = ContinuousClock.now + .seconds(wait)
            // On shutdown the server waits for open requests: answer with what there is.
            await withGracefulShutdownHandler {
                while version == known, let events = await follower.next(until: deadline), !events.isEmpty {
                    for event in events.sorted(by: { $0.sequence < $1.sequence }) where event.sequence > version {
                        order = event.applied(to: followed.order)
                        version = event.sequence
                    }
                }
            } onGracefulShutdown: {
                follower.stop()
            }
        }
        var headers = HTTPFields()
        headers.setValidator(EntityTags.weakTag(version))
        if let known, known == version { return Response(status: .notModified, headers: headers) }
        return try await render(order, request, headers: headers)
    }

    /// The longest an order read may wait for a change, in seconds.
    static let maxWait = 30

    static func waitSeconds(_ parameters: Parameters) throws(CanteenError) -> Int {
        guard let text = parameters.get("wait") else { return 0 }
        guard let seconds = Int(text), (0...maxWait).contains(seconds) else {
            throw CanteenError(
                .invalid, code: .invalidQuery,
                message: "wait is a whole number of seconds from 0 to \(maxWait)", field: "wait")
        }
        return seconds
    }

    /// The kiosk token that placed the order, or ops: a kiosk or ops token that may read it
    /// (`requireFollower`), refused as a read is refused.
    func cancel(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("orderId")
        try context.require(.kiosk, .ops)
        guard let followed = try await services.orderEvents.followedOrder(id: id) else {
            throw CanteenError.notFound(.order, id)
        }
        try context.requireFollower(of: followed)
        return try await render(try await services.orders.cancelOrder(id: id), request)
    }

    private func render(_ order: Order, _ request: Request, headers extra: HTTPFields = [:]) async throws -> Response {
        guard let cafe = try await services.cafes.cafe(id: order.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, order.cafeID)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        var headers = presentation.headers
        for field in extra { headers[field.name] = field.value }
        return JSONResponse.make(writing: OrderDTO(order, cafe: cafe, presentation: presentation), headers: headers)
    }
}
