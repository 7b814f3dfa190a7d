import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// What a kiosk's NFC agent tapped, relayed to the kiosk's page: the agent posts each tap (a badge's
/// technology and identifier, or a coupon tag's code) and gets it identified; the page, acting with the
/// same kiosk token, long-polls for the taps after its cursor, so the person's basket follows their badge.
struct TapRoutes {
    let services: APIServices
    let relay: TapRelay
    let cards: CardRoutes
    let coupons: CouponRoutes

    /// The longest a page may long-poll, in seconds.
    static let maxWait = 30

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/taps") { request, context in try await tap(request, context) }
        routes.on(.get, "/v1/taps") { request, context in try await list(request, context) }
    }

    /// A tap as the agent and the page see it.
    struct TapDTO: Encodable {
        struct Problem: Encodable {
            let code: String
            let message: String
        }

        let id: Int64
        /// `badge` or `coupon`.
        let kind: String
        let at: String
        /// A badge registered to someone.
        let user: CardRoutes.RegistrationDTO?
        /// A coupon tag: its code, terms and whether it can be redeemed now.
        let coupon: CouponDTO?
        /// Why the tap names nobody or no usable coupon (`card_not_registered`, `invalid_coupon_code`, …).
        let error: Problem?
    }

    /// `{"technology", "identifier"}` for a badge, or `{"coupon": CODE}` for a coupon tag: 201 with what it is.
    func tap(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.require(.kiosk)
        var request = request
        let body = try CardRoutes.object(try await request.jsonBody())
        var user: CardRoutes.RegistrationDTO?
        var coupon: CouponDTO?
        var problem: CanteenError?
        let kind: String
        if let code = body["coupon"] {
            kind = "coupon"
            guard body.count == 1, let code = code.stringValue, code.count <= 100 else {
                throw CanteenError(
                    .invalid, code: .invalidField,
                    message: "a coupon tap is {\"coupon\": CODE} (at most 100 characters)", field: "coupon")
            }
            do {
                (coupon, problem) = try await coupons.checked(code: code, cafeID: token.cafeID, context: context)
            } catch let error as CanteenError where error.kind != .internal {
                problem = error
            }
        } else {
            kind = "badge"
            let (technology, identifier) = try CardRoutes.card(body)
            do {
                user = try await cards.identification(technology: technology, identifier: identifier, by: token)
            } catch let error as CanteenError where error.code == .cardNotRegistered {
                problem = error
            }
        }
        var answer: Data = Data()
        relay.add(tokenID: token.id) { id in
            let dto = TapDTO(
                id: id, kind: kind, at: RFC3339.utcSeconds(services.clock()), user: user, coupon: coupon,
                error: problem.map { TapDTO.Problem(code: $0.code.rawValue, message: $0.message) })
            answer = (try? JSONResponse.encoder.encode(dto)) ?? Data()
            return answer
        }
        return JSONResponse.make(encoded: answer, status: .created)
    }

    /// `?after=CURSOR&wait=SECONDS`: the taps of this kiosk token after the cursor, still fresh (a minute).
    /// Without a cursor: none, and the cursor to start from.
    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let token = try context.require(.kiosk)
        let query = try FeedQuery(request.uri.queryParameters, maxWait: Self.maxWait)
        let (taps, cursor) = await relay.taps(tokenID: token.id, after: query.after, wait: .seconds(query.wait))
        var body = Data("{\"cursor\":\"\(cursor)\",\"taps\":[".utf8)
        for (index, tap) in taps.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(tap.json)
        }
        body.append(contentsOf: Array("]}".utf8))
        return JSONResponse.make(encoded: body, headers: [.cacheControl: "no-store"])
    }
}
