import Foundation

/// An order priced against a menu: lines as sold, subtotal, tax and total in minor units.
public struct PricedOrder: Hashable, Sendable {
    public var lines: [OrderLine]
    /// The coupon redeemed, or nil.
    public var discount: OrderDiscount?
    /// The lines' total less the discount.
    public var subtotal: Money
    public var tax: Money
    public var total: Money
    /// What the order takes from its pickup window's capacity (1 per order, or its item count).
    public var capacityUnits: Int

    /// The order with `coupon` redeemed at `cafe`: its discount comes off the subtotal, and tax and total
    /// are worked out again on what is left. Throws when the coupon does not apply to this order.
    public func redeeming(_ coupon: Coupon, at cafe: Cafe) throws(CanteenError) -> PricedOrder {
        let amount = try coupon.discount(on: self, at: cafe)
        var redeemed = self
        redeemed.discount = OrderDiscount(couponID: coupon.id, label: coupon.label, amount: amount)
        let currency = subtotal.currency
        redeemed.subtotal = Money(minorUnits: subtotal.minorUnits - amount, currency: currency)
        redeemed.tax = Money(minorUnits: cafe.tax.amount(of: redeemed.subtotal.minorUnits), currency: currency)
        redeemed.total = cafe.tax.included ? redeemed.subtotal : try redeemed.subtotal.adding(redeemed.tax)
        return redeemed
    }
}

extension CafeMenu {
    /// Prices `request` against this menu: every item, option and selection count is checked,
    /// items must be orderable at `pickupStart` (sold out now, or outside their day part then).
    public func price(_ request: OrderRequest, pickupStart: Date, now: Date) throws(CanteenError) -> PricedOrder {
        let currency = cafe.currency
        var lines: [OrderLine] = []
        var subtotal = Money.zero(currency)
        let pickupTime = cafe.localMoment(of: pickupStart).time
        for (index, line) in request.lines.enumerated() {
            let path = "lines[\(index)]"
            guard let item = menu.item(line.itemID) else {
                throw CanteenError(
                    .invalid, code: .unknownItem, message: "no item '\(line.itemID)' on this menu",
                    field: "\(path).itemId", parameters: ["item": line.itemID])
            }
            if let soldOut = soldOut[item.id], soldOut.applies(at: now) {
                throw CanteenError.itemUnavailable(item, reason: .soldOut, field: "\(path).itemId")
            }
            if menu.unavailability(of: item, soldOut: nil, localTime: pickupTime, at: pickupStart) != nil {
                throw CanteenError.itemUnavailable(item, reason: .outsideDayPart, field: "\(path).itemId")
            }
            let options = try selectedOptions(line.options, of: item, path: path)
            var unit = Money(minorUnits: item.price, currency: currency)
            for option in options {
                unit = try unit.adding(Money(minorUnits: option.priceDelta, currency: currency))
            }
            guard unit.minorUnits >= 0 else {
                throw CanteenError(
                    .invalid, code: .invalidField, message: "options make the price negative",
                    field: "\(path).options")
            }
            let lineTotal = try unit.multiplied(by: Int64(line.quantity))
            subtotal = try subtotal.adding(lineTotal)
            lines.append(
                OrderLine(
                    itemID: item.id, names: item.names, station: item.station, quantity: line.quantity,
                    options: options, note: line.note, unitPrice: unit.minorUnits,
                    lineTotal: lineTotal.minorUnits))
        }
        let tax = Money(minorUnits: cafe.tax.amount(of: subtotal.minorUnits), currency: currency)
        let total = cafe.tax.included ? subtotal : try subtotal.adding(tax)
        let units = cafe.pickup.capacityUnit == .orders ? 1 : request.lines.reduce(0) { $0 + $1.quantity }
        return PricedOrder(
            lines: lines, discount: nil, subtotal: subtotal, tax: tax, total: total, capacityUnits: units)
    }

    /// The options picked on a line, checked against the item's groups and their min/max.
    private func selectedOptions(_ ids: [String], of item: MenuItem, path: String) throws(CanteenError) -> [SoldOption]
    {
        var picked: [SoldOption] = []
        var perGroup: [String: Int] = [:]
        for (index, id) in ids.enumerated() {
            guard let group = item.modifierGroups.first(where: { $0.options.contains { $0.id == id } }),
                let option = group.options.first(where: { $0.id == id })
            else {
                throw CanteenError(
                    .invalid, code: .unknownOption, message: "'\(item.id)' has no option '\(id)'",
                    field: "\(path).options[\(index)]", parameters: ["option": id, "item": item.id])
            }
            perGroup[group.id, default: 0] += 1
            picked.append(
                SoldOption(groupID: group.id, optionID: option.id, names: option.names, priceDelta: option.priceDelta))
        }
        for group in item.modifierGroups {
            let count = perGroup[group.id] ?? 0
            guard (group.min...group.max).contains(count) else {
                let rule = group.min == group.max ? "exactly \(group.min)" : "\(group.min) to \(group.max)"
                throw CanteenError(
                    .invalid, code: .invalidSelection,
                    message: "'\(group.id)' of '\(item.id)' takes \(rule) options; \(count) chosen",
                    field: "\(path).options",
                    parameters: ["group": group.id, "min": "\(group.min)", "max": "\(group.max)", "count": "\(count)"])
            }
        }
        return picked
    }
}

extension TaxPolicy {
    /// The tax in an amount, rounded half away from zero, once.
    /// Exclusive: amount × rate. Inclusive: the tax part of the amount, amount × rate / (1 + rate).
    public func amount(of subtotal: Int64) -> Int64 {
        let rate = Int64(rateBasisPoints)
        let divisor: Int64 = included ? 10_000 + rate : 10_000
        return Self.roundedQuotient(subtotal, times: rate, dividedBy: divisor)
    }

    /// `value × factor / divisor` in 128-bit arithmetic, rounded half away from zero.
    static func roundedQuotient(_ value: Int64, times factor: Int64, dividedBy divisor: Int64) -> Int64 {
        let negative = (value < 0) != (factor < 0)
        let product = value.magnitude.multipliedFullWidth(by: factor.magnitude)
        let (quotient, remainder) = UInt64(divisor).dividingFullWidth(product)
        var magnitude = quotient
        if remainder * 2 >= UInt64(divisor) { magnitude += 1 }
        let result = Int64(clamping: magnitude)
        return negative ? -result : result
    }
}

extension CanteenError {
    static func itemUnavailable(_ item: MenuItem, reason: Unavailability, field: String) -> CanteenError {
        let why = reason == .soldOut ? "is sold out" : "is not served at that time"
        return CanteenError(
            .conflict, code: .itemUnavailable, message: "'\(item.id)' \(why)", field: field,
            parameters: ["item": item.id, "reason": reason.rawValue])
    }
}
