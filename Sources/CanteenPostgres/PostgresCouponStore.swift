import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `CouponRepository`, with the SQLite store's rules. Codes
/// are signed with the key every server shares (`PostgresServerKey`), so a code minted on one
/// server is accepted by the others. A use is taken in the order's own transaction
/// (`PostgresOrderStore`, through `redeem`) by a conditional update: a coupon with one use
/// left, redeemed on two servers at once, is taken once (the second waits for the first's
/// row lock, re-reads the row and updates nothing).
public final class PostgresCouponStore: CouponRepository {
    let database: PostgresDatabase
    private let key: PostgresServerKey
    private let clock: @Sendable () -> Date

    public init(database: PostgresDatabase, key: PostgresServerKey, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.key = key
        self.clock = clock
    }

    static let select = """
        SELECT id, label, kind, amount, currency, itemId, cafeId, validFrom, validUntil, maxUses, uses, createdAt, revokedAt
        FROM coupon
        """

    public func createCoupon(_ coupon: Coupon, audit: AuditEntry?) async throws -> Coupon {
        try CouponSigner.validate(coupon.id)
        let (kind, amount, currency, itemID): (String, Int64?, String?, String?) =
            switch coupon.benefit {
            case .amountOff(let money): ("amount", money.minorUnits, money.currency.code, nil)
            case .itemFree(let item): ("item", nil, nil, item)
            }
        try await database.transaction { connection in
            let logger = self.database.logger
            if let cafeID = coupon.cafeID,
                try await connection.firstRow("SELECT 1 FROM cafe WHERE id = \(cafeID)", logger: logger) == nil
            {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(cafeID)'",
                    field: "cafeId", parameters: ["cafe": cafeID])
            }
            guard
                try await connection.firstRow(
                    """
                    INSERT INTO coupon (id, label, kind, amount, currency, itemId, cafeId, validFrom, validUntil, maxUses, uses,
                        createdAt, revokedAt)
                    VALUES (\(coupon.id), \(coupon.label), \(kind), \(amount), \(currency), \(itemID), \(coupon.cafeID),
                        \(coupon.validFrom), \(coupon.validUntil), \(coupon.maxUses), \(coupon.uses), \(coupon.createdAt),
                        \(coupon.revokedAt))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                    """, logger: logger) != nil
            else {
                throw CanteenError(
                    .conflict, code: .duplicateId, message: "a coupon with id '\(coupon.id)' exists",
                    field: "id", parameters: ["field": "id"])
            }
            try await PostgresAuditStore.record(
                audit?.targeting(coupon.id), before: nil, after: coupon.audited,
                at: coupon.createdAt, connection, logger: logger)
        }
        return coupon
    }

    public func coupons() async throws -> [Coupon] {
        try await database.withConnection { connection in
            try await connection.rows(
                "\(unescaped: Self.select) ORDER BY createdAt DESC, id", logger: self.database.logger
            )
            .map(Self.coupon)
        }
    }

    public func coupon(id: String) async throws -> Coupon? {
        try await database.withConnection { connection in
            try await connection.firstRow("\(unescaped: Self.select) WHERE id = \(id)", logger: self.database.logger)
                .map(Self.coupon)
        }
    }

    public func revokeCoupon(id: String, audit: AuditEntry?) async throws -> Coupon {
        let now = clock()
        return try await database.transaction { connection in
            let logger = self.database.logger
            guard
                let before = try await connection.firstRow(
                    "SELECT revokedAt IS NULL FROM coupon WHERE id = \(id) FOR UPDATE", logger: logger)
            else { throw CanteenError.notFound(.coupon, id) }
            let wasLive = try StoredColumns.decode(before, table: "coupon", Bool.self)
            guard
                let row = try await connection.firstRow(
                    """
                    UPDATE coupon SET revokedAt = COALESCE(revokedAt, \(now)) WHERE id = \(id)
                    RETURNING id, label, kind, amount, currency, itemId, cafeId, validFrom, validUntil, maxUses, uses,
                        createdAt, revokedAt
                    """, logger: logger)
            else { throw CanteenError.notFound(.coupon, id) }
            if wasLive {
                try await PostgresAuditStore.write(audit?.revocation(at: now), connection, logger: logger)
            }
            return try Self.coupon(row)
        }
    }

    public func code(couponID: String) throws -> String { try key.signer().code(couponID: couponID) }

    public func couponID(code: String) throws -> String { try key.signer().couponID(code: code) }

    // MARK: - Redeeming, inside an order's transaction

    /// Redeems `couponID` on `priced` at `cafe` at `now`: checks the coupon is usable and
    /// applies, takes one use (never past its maximum, whoever redeems it at the same time, on
    /// any server), and returns the order with its discount.
    static func redeem(
        _ couponID: String, on priced: PricedOrder, at cafe: Cafe, now: Date,
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> PricedOrder {
        guard let row = try await connection.firstRow("\(unescaped: select) WHERE id = \(couponID)", logger: logger)
        else {
            throw CanteenError.unknownCoupon(couponID)
        }
        let coupon = try Self.coupon(row)
        if let unusable = coupon.unusable(at: now) { throw unusable }
        let redeemed = try priced.redeeming(coupon, at: cafe)
        guard
            try await connection.firstRow(
                "UPDATE coupon SET uses = uses + 1 WHERE id = \(couponID) AND uses < maxUses RETURNING uses",
                logger: logger) != nil
        else {
            throw CanteenError(
                .conflict, code: .couponUsedUp, message: "coupon \(couponID) has been used up",
                field: "coupon")
        }
        return redeemed
    }

    /// Gives back the use an order took (the order was cancelled before it was picked up).
    static func release(_ couponID: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(
            "UPDATE coupon SET uses = uses - 1 WHERE id = \(couponID) AND uses > 0", logger: logger)
    }

    /// A row of `select`; a row that does not parse is an error naming it.
    static func coupon(_ row: PostgresRow) throws -> Coupon {
        let (
            id, label, kind, amount, currency, itemID, cafeID, validFrom, validUntil, maxUses, uses, createdAt,
            revokedAt
        ) = try StoredColumns.decode(
            row, table: "coupon",
            (
                String, String, String, Int64?, String?, String?, String?,
                Date?, Date?, Int, Int, Date, Date?
            ).self)
        let benefit: Coupon.Benefit
        switch (kind, amount, currency, itemID) {
        case ("amount", let amount?, let code?, _):
            guard let currency = try? Currency(code: code) else {
                throw StoredRow.invalid(table: "coupon", id: id, "'\(code)' is not an ISO 4217 currency code")
            }
            benefit = .amountOff(Money(minorUnits: amount, currency: currency))
        case ("item", _, _, let item?):
            benefit = .itemFree(itemID: item)
        default:
            throw StoredRow.invalid(table: "coupon", id: id, "kind '\(kind)' without its amount or item")
        }
        return Coupon(
            id: id, label: label, benefit: benefit, cafeID: cafeID, validFrom: validFrom, validUntil: validUntil,
            maxUses: maxUses, uses: uses, createdAt: createdAt, revokedAt: revokedAt)
    }
}
