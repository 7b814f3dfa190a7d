import CanteenCore
import CanteenJSON
import Foundation

/// A coupon on the wire: its terms, its signed code (what a tag or a link carries) and where it stands.
struct CouponDTO: Encodable {
    struct Amount: Encodable {
        let amount: Int64
        let currency: String
    }

    let id: String
    let code: String
    let label: String
    let amountOff: Amount?
    let itemId: String?
    let cafeId: String?
    let validFrom: String?
    let validUntil: String?
    let maxUses: Int
    let uses: Int
    let remainingUses: Int
    /// `active`, `revoked`, `not_yet_valid`, `expired` or `used_up`, now.
    let status: String
    let createdAt: String
    let revokedAt: String?
    /// Answers of `POST /v1/coupons/check` only: whether it can be redeemed now, and if not, the error code why.
    var usable: Bool?
    var reason: String?

    init(_ coupon: Coupon, code: String, now: Date) {
        id = coupon.id
        self.code = code
        label = coupon.label
        switch coupon.benefit {
        case .amountOff(let money):
            amountOff = Amount(amount: money.minorUnits, currency: money.currency.code)
            itemId = nil
        case .itemFree(let item):
            amountOff = nil
            itemId = item
        }
        cafeId = coupon.cafeID
        validFrom = coupon.validFrom.map(RFC3339.utcSeconds)
        validUntil = coupon.validUntil.map(RFC3339.utcSeconds)
        maxUses = coupon.maxUses
        uses = coupon.uses
        remainingUses = coupon.remainingUses
        status =
            switch coupon.unusable(at: now)?.code {
            case nil: "active"
            case .couponRevoked?: "revoked"
            case .couponNotYetValid?: "not_yet_valid"
            case .couponExpired?: "expired"
            default: "used_up"
            }
        createdAt = RFC3339.utcSeconds(coupon.createdAt)
        revokedAt = coupon.revokedAt.map(RFC3339.utcSeconds)
    }
}

/// `GET /v1/coupons`.
struct CouponListDTO: Encodable {
    let coupons: [CouponDTO]
}
