import CanteenCore
import CanteenJSON
import CanteenPersistence
import Crypto
import Foundation
import GRDB

/// The SQLite implementation of `CouponRepository`. Codes are signed with the server's key
/// (`CouponSigner`); redeeming happens in the order's transaction (`OrderStore`), through
/// `redeem(_:db:)`, so that a single-use coupon taken by two kiosks at once is taken once.
public final class CouponStore: CouponRepository {
    let database: AppDatabase
    private let signer: CouponSigner
    private let clock: @Sendable () -> Date

    /// `key` signs coupon codes (the server's card key, `CardKey`).
    public init(database: AppDatabase, key: SymmetricKey, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.signer = CouponSigner(key: key)
        self.clock = clock
    }

    public func createCoupon(_ coupon: Coupon, audit: AuditEntry?) async throws -> Coupon {
        try CouponSigner.validate(coupon.id)
        let record = CouponRecord(coupon)
        try await database.writer.write { db in
            if let cafeID = coupon.cafeID, try !CafeRecord.exists(db, key: cafeID) {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(cafeID)'",
                    field: "cafeId", parameters: ["cafe": cafeID])
            }
            guard try !CouponRecord.exists(db, key: coupon.id) else {
                throw CanteenError(
                    .conflict, code: .duplicateId, message: "a coupon with id '\(coupon.id)' exists",
                    field: "id", parameters: ["field": "id"])
            }
            try record.insert(db)
            try AuditStore.record(
                audit?.targeting(coupon.id), before: nil, after: coupon.audited, at: coupon.createdAt, db)
        }
        return coupon
    }

    public func coupons() async throws -> [Coupon] {
        try await database.writer.read { db in
            try CouponRecord.order(Column("createdAt").desc, Column("id")).fetchAll(db).map { try $0.coupon() }
        }
    }

    public func coupon(id: String) async throws -> Coupon? {
        try await database.writer.read { db in try CouponRecord.fetchOne(db, key: id)?.coupon() }
    }

    public func revokeCoupon(id: String, audit: AuditEntry?) async throws -> Coupon {
        let now = clock()
        return try await database.writer.write { db in
            guard var record = try CouponRecord.fetchOne(db, key: id) else { throw CanteenError.notFound(.coupon, id) }
            if record.revokedAt == nil {
                record.revokedAt = now
                try record.update(db)
                try AuditStore.write(audit?.revocation(at: now), db)
            }
            return try record.coupon()
        }
    }

    public func code(couponID: String) throws -> String { try signer.code(couponID: couponID) }

    public func couponID(code: String) throws -> String { try signer.couponID(code: code) }

    // MARK: - Redeeming, inside an order's transaction

    /// Redeems `couponID` on `priced` at `cafe` at `now`: checks the coupon is usable and applies,
    /// takes one use (never past its maximum, whoever else redeems it at the same time), and
    /// returns the order with its discount.
    static func redeem(
        _ couponID: String, on priced: PricedOrder, at cafe: Cafe, now: Date,
        _ db: Database
    ) throws -> PricedOrder {
        guard let record = try CouponRecord.fetchOne(db, key: couponID) else {
            throw CanteenError.unknownCoupon(couponID)
        }
        let coupon = try record.coupon()
        if let unusable = coupon.unusable(at: now) { throw unusable }
        let redeemed = try priced.redeeming(coupon, at: cafe)
        try db.execute(sql: "UPDATE coupon SET uses = uses + 1 WHERE id = ? AND uses < maxUses", arguments: [couponID])
        guard db.changesCount == 1 else {
            throw CanteenError(
                .conflict, code: .couponUsedUp, message: "coupon \(couponID) has been used up",
                field: "coupon")
        }
        return redeemed
    }

    /// Gives back the use an order took (the order was cancelled before it was picked up).
    static func release(_ couponID: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE coupon SET uses = uses - 1 WHERE id = ? AND uses > 0", arguments: [couponID])
    }
}

/// A row of `coupon`.
struct CouponRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "coupon"
    var id: String
    var label: String
    var kind: String
    var amount: Int64?
    var currency: String?
    var itemId: String?
    var cafeId: String?
    var validFrom: Date?
    var validUntil: Date?
    var maxUses: Int
    var uses: Int
    var createdAt: Date
    var revokedAt: Date?

    init(_ coupon: Coupon) {
        id = coupon.id
        label = coupon.label
        switch coupon.benefit {
        case .amountOff(let money):
            kind = "amount"
            amount = money.minorUnits
            currency = money.currency.code
        case .itemFree(let item):
            kind = "item"
            itemId = item
        }
        cafeId = coupon.cafeID
        validFrom = coupon.validFrom
        validUntil = coupon.validUntil
        maxUses = coupon.maxUses
        uses = coupon.uses
        createdAt = coupon.createdAt
        revokedAt = coupon.revokedAt
    }

    /// The coupon this row holds; a row that does not parse is an error naming it.
    func coupon() throws -> Coupon {
        let benefit: Coupon.Benefit
        switch (kind, amount, currency, itemId) {
        case ("amount", let amount?, let code?, _):
            guard let currency = try? Currency(code: code) else {
                throw StoredRow.invalid(
                    table: Self.databaseTableName, id: id, "'\(code)' is not an ISO 4217 currency code")
            }
            benefit = .amountOff(Money(minorUnits: amount, currency: currency))
        case ("item", _, _, let item?):
            benefit = .itemFree(itemID: item)
        default:
            throw StoredRow.invalid(table: Self.databaseTableName, id: id, "kind '\(kind)' without its amount or item")
        }
        return Coupon(
            id: id, label: label, benefit: benefit, cafeID: cafeId, validFrom: validFrom,
            validUntil: validUntil, maxUses: maxUses, uses: uses, createdAt: createdAt, revokedAt: revokedAt)
    }
}
