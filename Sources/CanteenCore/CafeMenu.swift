import CanteenJSON
import Foundation

/// A café with the current version of its menu (the version moves on every change).
public struct VersionedCafe: Hashable, Sendable {
    public var cafe: Cafe
    public var menuVersion: Int64

    public init(cafe: Cafe, menuVersion: Int64) {
        self.cafe = cafe
        self.menuVersion = menuVersion
    }
}

/// A café's menu as stored: definition, sold-out marks and version.
public struct CafeMenu: Hashable, Sendable {
    public var cafe: Cafe
    public var menu: Menu
    /// Sold-out marks by item id.
    public var soldOut: [String: SoldOut]
    public var version: Int64

    public init(cafe: Cafe, menu: Menu, soldOut: [String: SoldOut], version: Int64) {
        self.cafe = cafe
        self.menu = menu
        self.soldOut = soldOut
        self.version = version
    }
}

/// A change ops make to one menu item.
public enum MenuItemChange: Hashable, Sendable {
    /// Mark sold out (until an instant, or indefinitely) or back in stock.
    case soldOut(Bool, until: Date?)
    /// A new price in minor units.
    case price(Int64)
}

extension MenuItemChange {
    /// What the audit log shows of an item: its price and sold-out mark.
    public static func audited(price: Int64, soldOut: Bool, until: Date?) -> JSONValue {
        .object([
            "price": .int(price), "soldOut": .bool(soldOut),
            "soldOutUntil": until.map { .string(RFC3339.utcSeconds($0)) } ?? .null,
        ])
    }
}
