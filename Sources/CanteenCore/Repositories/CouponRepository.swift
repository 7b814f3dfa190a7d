import CanteenJSON
import Foundation

/// Where coupons are kept, and how their codes are signed and checked. Redeeming one happens in the
/// order's own transaction (`OrderRepository.placeOrder` with `OrderRequest.couponID`).
public protocol CouponRepository: Sendable {
    /// Stores a new coupon; `duplicate_id` when its id is taken. `audit` (when given, here and
    /// below) is recorded in the same transaction.
    func createCoupon(_ coupon: Coupon, audit: AuditEntry?) async throws -> Coupon
    /// Every coupon, newest first.
    func coupons() async throws -> [Coupon]
    /// One coupon, or nil.
    func coupon(id: String) async throws -> Coupon?
    /// Withdraws a coupon: orders placed with it keep their discount; it cannot be redeemed again.
    func revokeCoupon(id: String, audit: AuditEntry?) async throws -> Coupon
    /// The signed code of a coupon id.
    func code(couponID: String) throws -> String
    /// The coupon id a code was signed for; `invalid_coupon_code` when it is malformed or forged.
    func couponID(code: String) throws -> String
}

extension CouponRepository {
    public func createCoupon(_ coupon: Coupon) async throws -> Coupon { try await createCoupon(coupon, audit: nil) }

    public func revokeCoupon(id: String) async throws -> Coupon { try await revokeCoupon(id: id, audit: nil) }
}
