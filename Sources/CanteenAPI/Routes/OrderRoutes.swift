import CanteenCore
import CanteenFormat
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Orders: place (kiosk or ops, idempotent), read, cancel.
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
        let token = try context.require(.kiosk, .ops)
        do {
            return try await placeCounted(request, context, token: token)
        } catch {
            services.metrics.orderRefused(ErrorMiddleware.canteenError(for: error).code)
            throw error
        }
    }

    private func placeCounted(_ request: Request, _ context: CanteenRequestContext,
                              token: AccessToken) async throws -> Response {
        let key = try Self.idempotencyKey(request)
        return try await gate.run(tokenID: token.id, key: key) {
            var request = request
            let body = try await request.jsonBody()
            var orderRequest = try OrderRequest.parse(body)
            try context.requireAccess(to: orderRequest.cafeID)
            if let code = orderRequest.couponCode { orderRequest.couponID = try services.coupons.couponID(code: code) }
            let fingerprint = Data(SHA256.hash(data: body.encoded()))
            let language = request.headers[.acceptLanguage].map { String(decoding: $0.utf8.prefix(AcceptLanguage.maximumLength), as: UTF8.self) }
            let placement: OrderPlacement
            do {
                placement = try await services.orders.placeOrder(
                    orderRequest, key: IdempotencyKey(tokenID: token.id, key: key, requestHash: fingerprint,
                                                      answerLanguage: language))
            } catch var error as CanteenError where error.code == .idempotencyKeyReused {
                error.field = Self.idempotencyHeader.rawName
                error.message = "this Idempotency-Key was already used with a different request"
                throw error
            }
            switch placement {
            case .placed(let order):
                services.metrics.orderPlaced(cafeID: order.cafeID)
                return try await answer(order, acceptLanguage: language, status: .created,
                                        headers: [.location: "/v1/orders/\(order.id)"])
            case .replayed(let order, let firstLanguage):
                services.metrics.orderReplayed()
                return try await answer(order, acceptLanguage: firstLanguage, status: .created,
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
    private func answer(_ order: Order, acceptLanguage: String?, status: HTTPResponse.Status,
                        headers extra: HTTPFields) async throws -> Response {
        guard let cafe = try await services.cafes.cafe(id: order.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, order.cafeID)
        }
        let presentation = services.presenter.presentation(acceptLanguage: acceptLanguage, cafe: cafe)
        var headers = presentation.headers
        for field in extra { headers[field.name] = field.value }
        return JSONResponse.make(writing: OrderDTO(order, cafe: cafe, presentation: presentation), status: status,
                                 headers: headers)
    }

    static func idempotencyKey(_ request: Request) throws(CanteenError) -> String {
        guard let key = request.headers[idempotencyHeader] else {
            throw CanteenError(.malformed, code: .idempotencyKeyMissing,
                               message: "POST /v1/orders needs an Idempotency-Key header (1–255 characters)",
                               field: "Idempotency-Key")
        }
        guard (1...255).contains(key.count), key.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F }) else {
            throw CanteenError(.malformed, code: .idempotencyKeyInvalid,
                               message: "an Idempotency-Key is 1–255 visible ASCII characters", field: "Idempotency-Key")
        }
        return key
    }

    func read(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("orderId")
        let token = try context.requireToken()
        guard let order = try await services.orders.order(id: id) else { throw CanteenError.notFound(.order, id) }
        try context.requireAccess(to: order.cafeID)
        if token.role == .user, order.customer.userID == nil || order.customer.userID != token.userID {
            throw CanteenError(.forbidden, code: .forbidden, message: "a user token follows its own user's orders only")
        }
        return try await render(order, request)
    }

    /// Kiosks of the order's café, or ops.
    func cancel(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let id = try context.parameters.path("orderId")
        try context.require(.kiosk, .ops)
        guard let order = try await services.orders.order(id: id) else { throw CanteenError.notFound(.order, id) }
        try context.requireAccess(to: order.cafeID)
        return try await render(try await services.orders.cancelOrder(id: id), request)
    }

    private func render(_ order: Order, _ request: Request) async throws -> Response {
        guard let cafe = try await services.cafes.cafe(id: order.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, order.cafeID)
        }
        let presentation = services.presenter.presentation(for: request, cafe: cafe)
        return JSONResponse.make(writing: OrderDTO(order, cafe: cafe, presentation: presentation),
                                 headers: presentation.headers)
    }
}
