import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// Coupons: ops mint, list, read and withdraw them; a kiosk checks a code before the order is placed
/// (a coupon tag was tapped). Redeeming happens with the order (`coupon` in `POST /v1/orders`).
struct CouponRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/coupons") { request, context in try await create(request, context) }
        routes.on(.get, "/v1/coupons") { _, context in try await list(context) }
        routes.on(.post, "/v1/coupons/check") { request, context in try await check(request, context) }
        routes.on(.get, "/v1/coupons/:couponId") { _, context in try await read(context) }
        routes.on(.delete, "/v1/coupons/:couponId") { _, context in try await revoke(context) }
    }

    /// The most uses one coupon may have.
    static let maxUses: Int64 = 1_000_000

    func create(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        var request = request
        let coupon = try Self.readCoupon(
            try await request.jsonBody(), now: services.clock(),
            newID: { Self.newID() })
        let created = try await services.coupons.createCoupon(
            coupon, audit: context.audit("coupon.create", "coupon", coupon.id, cafe: coupon.cafeID))
        return try JSONResponse.make(
            try dto(created), status: .created,
            headers: [.location: "/v1/coupons/\(created.id)"])
    }

    func list(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        return try JSONResponse.make(CouponListDTO(coupons: try await services.coupons.coupons().map(dto)))
    }

    func read(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("couponId")
        guard let coupon = try await services.coupons.coupon(id: id) else { throw CanteenError.notFound(.coupon, id) }
        return try JSONResponse.make(try dto(coupon))
    }

    /// Withdraws the coupon; orders that redeemed it keep their discount.
    func revoke(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("couponId")
        let cafeID = try await services.coupons.coupon(id: id)?.cafeID
        let revoked = try await services.coupons.revokeCoupon(
            id: id,
            audit: context.audit(
                "coupon.revoke", "coupon", id,
                cafe: cafeID))
        return try JSONResponse.make(try dto(revoked))
    }

    /// `{"code", "cafeId"?}`: the coupon a code names and whether it can be redeemed now (at that café).
    func check(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.kiosk, .ops)
        var request = request
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(try await request.jsonBody(), path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let code = reader.string("code")
        let cafeID = reader.string("cafeId", required: false)
        reader.finish()
        try problems.throwIfAny()
        return try JSONResponse.make(try await checked(code: code ?? "", cafeID: cafeID, context: context).coupon)
    }

    /// The coupon a code names, and why it cannot be redeemed now (at `cafeID`), or nil when it can.
    /// Throws when the code is forged (`invalid_coupon_code`, field `code`) or names no coupon.
    func checked(code: String, cafeID: String?, context: CanteenRequestContext) async throws
        -> (coupon: CouponDTO, reason: CanteenError?)
    {
        let id: String
        do {
            id = try services.coupons.couponID(code: code)
        } catch var error as CanteenError {
            error.field = "code"
            throw error
        }
        guard let coupon = try await services.coupons.coupon(id: id) else { throw CanteenError.notFound(.coupon, id) }
        var reason = coupon.unusable(at: services.clock())
        if reason == nil, let cafeID {
            try context.requireAccess(to: cafeID)
            if let only = coupon.cafeID, only != cafeID {
                reason = CanteenError(
                    .invalid, code: .couponNotApplicable,
                    message: "coupon \(coupon.id) is good at café \(only) only")
            }
        }
        var answer = try dto(coupon)
        answer.usable = reason == nil
        answer.reason = reason?.code.rawValue
        return (answer, reason)
    }

    private func dto(_ coupon: Coupon) throws -> CouponDTO {
        CouponDTO(coupon, code: try services.coupons.code(couponID: coupon.id), now: services.clock())
    }

    // MARK: - Input

    /// A new coupon id: 10 characters of an alphabet without look-alikes.
    static func newID() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// The body of `POST /v1/coupons`; every problem names its field.
    static func readCoupon(_ body: JSONValue, now: Date, newID: () -> String) throws(ValidationError) -> Coupon {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(body, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let id = reader.string("id", required: false)
        let label = reader.string("label")
        let cafeID = reader.string("cafeId", required: false)
        let itemID = reader.string("itemId", required: false)
        var amountOff: Money?
        if var amount = reader.object("amountOff", required: false) {
            let minor = amount.integer("amount", in: 1...Coupon.maximumAmount)
            let code = amount.string("currency")
            amount.finish()
            if let code {
                if let currency = try? Currency(code: code) {
                    if let minor { amountOff = Money(minorUnits: minor, currency: currency) }
                } else {
                    problems.add(
                        "amountOff.currency", "'\(code.prefix(16))' is not an ISO 4217 currency code",
                        code: .unknownCurrency)
                }
            }
        }
        let validFrom = date(&reader, "validFrom", problems)
        let validUntil = date(&reader, "validUntil", problems)
        let maxUses = reader.integer("maxUses", required: false, in: 1...maxUses)
        reader.finish()
        if let id, !Coupon.isValidID(id) {
            problems.add("id", "a coupon id has 1 to 32 characters of A–Z, a–z, 0–9, - and _")
        }
        if let label, label.count > 80 { problems.add("label", "a label has at most 80 characters") }
        if reader.has("itemId") == reader.has("amountOff") {
            problems.add("amountOff", "a coupon takes either an amount (amountOff) or an item (itemId) off, not both")
        }
        if let validFrom, let validUntil, validUntil <= validFrom {
            problems.add("validUntil", "validUntil comes after validFrom")
        }
        try problems.throwIfAny()
        let benefit: Coupon.Benefit
        if let amountOff {
            benefit = .amountOff(amountOff)
        } else if let itemID {
            benefit = .itemFree(itemID: itemID)
        } else {
            throw ValidationError(problems: problems.all)
        }
        return Coupon(
            id: id ?? newID(), label: label ?? "", benefit: benefit, cafeID: cafeID, validFrom: validFrom,
            validUntil: validUntil, maxUses: Int(maxUses ?? 1), createdAt: now)
    }

    private static func date(_ reader: inout JSONObjectReader, _ key: String, _ problems: ValidationProblems) -> Date? {
        guard let text = reader.string(key, required: false) else { return nil }
        guard let date = RFC3339.parse(text) else {
            problems.add(
                key, "'\(text.prefix(40))' is not an RFC 3339 date-time such as 2026-12-01T00:00:00Z",
                code: .invalidTimestamp)
            return nil
        }
        return date
    }
}
