import CanteenJSON
import Foundation

// MARK: - Coupon

/// A promotion ops mint: an amount or an item off, at one café or all, for a time, a number of uses.
/// A coupon travels as a signed code (`ID.SIGNATURE`, e.g. on an NFC tag); its terms stay here.
public struct Coupon: Hashable, Sendable {
    /// What the coupon takes off an order.
    public enum Benefit: Hashable, Sendable {
        /// An amount off the order, in one currency (only at cafés that sell in it).
        case amountOff(Money)
        /// One of this item free (its price with the options chosen on the first line that has it).
        case itemFree(itemID: String)
    }

    public var id: String
    /// What the kiosk and the receipt show, e.g. "2 € off a lunch".
    public var label: String
    public var benefit: Benefit
    /// The only café it is good at, or nil for every café.
    public var cafeID: String?
    public var validFrom: Date?
    public var validUntil: Date?
    public var maxUses: Int
    public var uses: Int
    public var createdAt: Date
    public var revokedAt: Date?

    public init(
        id: String, label: String, benefit: Benefit, cafeID: String?, validFrom: Date?, validUntil: Date?,
        maxUses: Int, uses: Int = 0, createdAt: Date, revokedAt: Date? = nil
    ) {
        self.id = id
        self.label = label
        self.benefit = benefit
        self.cafeID = cafeID
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.maxUses = maxUses
        self.uses = uses
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// The largest amount a coupon takes off, in minor units.
    public static let maximumAmount: Int64 = 1_000_000_000

    /// Whether `id` can name a coupon (it travels in codes and URLs): 1 to 32 characters of A–Z, a–z, 0–9, - and _.
    public static func isValidID(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            }
    }

    /// Uses left.
    public var remainingUses: Int { max(0, maxUses - uses) }

    /// Why the coupon cannot be used at `now` (revoked, not yet or no longer valid, used up), or nil.
    public func unusable(at now: Date) -> CanteenError? {
        if revokedAt != nil {
            return CanteenError(.conflict, code: .couponRevoked, message: "coupon \(id) was withdrawn", field: "coupon")
        }
        if let validFrom, now < validFrom {
            return CanteenError(
                .conflict, code: .couponNotYetValid,
                message: "coupon \(id) is valid from \(RFC3339.string(validFrom, timeZone: .gmt))",
                field: "coupon")
        }
        if let validUntil, now >= validUntil {
            return CanteenError(
                .conflict, code: .couponExpired,
                message: "coupon \(id) expired at \(RFC3339.string(validUntil, timeZone: .gmt))",
                field: "coupon")
        }
        if uses >= maxUses {
            return CanteenError(
                .conflict, code: .couponUsedUp,
                message: "coupon \(id) has been used \(uses) of \(maxUses) times", field: "coupon")
        }
        return nil
    }

    /// How much the coupon takes off `priced` at `cafe` (minor units, at most the subtotal), or why it does not
    /// apply there.
    public func discount(on priced: PricedOrder, at cafe: Cafe) throws(CanteenError) -> Int64 {
        if let cafeID, cafeID != cafe.id {
            throw notApplicable("coupon \(id) is good at café \(cafeID) only")
        }
        let amount: Int64
        switch benefit {
        case .amountOff(let money):
            guard money.currency == cafe.currency else {
                throw notApplicable(
                    "coupon \(id) is in \(money.currency.code); this café sells in \(cafe.currency.code)")
            }
            amount = money.minorUnits
        case .itemFree(let itemID):
            guard let line = priced.lines.first(where: { $0.itemID == itemID }) else {
                throw notApplicable("coupon \(id) takes one '\(itemID)' off; the order has none")
            }
            amount = line.unitPrice
        }
        return min(amount, priced.subtotal.minorUnits)
    }

    private func notApplicable(_ message: String) -> CanteenError {
        CanteenError(.invalid, code: .couponNotApplicable, message: message, field: "coupon")
    }
}

// MARK: - OrderDiscount

/// A coupon as redeemed on an order: frozen at the moment of sale, like the order's lines.
public struct OrderDiscount: Hashable, Sendable {
    public var couponID: String
    public var label: String
    /// Minor units taken off the order (positive), in the order's currency.
    public var amount: Int64

    public init(couponID: String, label: String, amount: Int64) {
        self.couponID = couponID
        self.label = label
        self.amount = amount
    }
}

// MARK: - Audit

extension Coupon {
    /// What the audit log shows of a new coupon (its code is never stored: it is signed).
    public var audited: JSONValue {
        var object: [String: JSONValue] = [
            "label": .string(label), "cafeId": cafeID.map(JSONValue.string) ?? .null, "maxUses": .int(Int64(maxUses)),
            "validFrom": validFrom.map { .string(RFC3339.utcSeconds($0)) } ?? .null,
            "validUntil": validUntil.map { .string(RFC3339.utcSeconds($0)) } ?? .null,
        ]
        switch benefit {
        case .amountOff(let money):
            object["amountOff"] = .object(["amount": .int(money.minorUnits), "currency": .string(money.currency.code)])
        case .itemFree(let itemID):
            object["itemId"] = .string(itemID)
        }
        return .object(object)
    }
}

extension CanteenError {
    /// An order names a coupon that does not exist (its code was signed here, so it was deleted or never stored).
    public static func unknownCoupon(_ id: String) -> CanteenError {
        CanteenError(
            .invalid, code: .unknownCoupon, message: "no coupon with id '\(id)'", field: "coupon",
            parameters: ["coupon": id])
    }
}
