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
        .object(["price": .int(price), "soldOut": .bool(soldOut),
                 "soldOutUntil": until.map { .string(RFC3339.utcSeconds($0)) } ?? .null])
    }
}

/// Where cafés and menus are kept.
public protocol CafeRepository: Sendable {
    /// Every café, ordered by id.
    func cafes() async throws -> [VersionedCafe]
    /// One café, or nil.
    func cafe(id: String) async throws -> VersionedCafe?
    /// Creates or updates a café's configuration; bumps its menu version. Returns the new state.
    /// `audit` (when given) is recorded in the same transaction, with the fields that changed.
    func saveCafe(_ cafe: Cafe, audit: AuditEntry?) async throws -> VersionedCafe
    /// The café's menu with sold-out marks, or nil when the café does not exist.
    func menu(cafeID: String) async throws -> CafeMenu?
    /// Replaces the café's menu; sold-out marks of items that remain are kept. Returns the new version.
    func replaceMenu(cafeID: String, with menu: Menu, audit: AuditEntry?) async throws -> Int64
    /// Applies `changes` to one item in one transaction. Returns the new version.
    func updateItem(cafeID: String, itemID: String, changes: [MenuItemChange], audit: AuditEntry?) async throws -> Int64
    /// Validated café files replace the cafés they name, all in one transaction.
    func importCafes(_ documents: [(cafe: Cafe, menu: Menu)]) async throws
    /// Imports the documents only when there is no café at all, in one transaction (servers
    /// starting together on an empty database import once). Returns whether it imported.
    func importCafesIfEmpty(_ documents: [(cafe: Cafe, menu: Menu)]) async throws -> Bool
    /// Deletes a café with its menu and beacons; `cafe_not_found`, or `cafe_in_use` (409) while
    /// orders reference it. Preferences naming it are kept (café resolution falls back).
    func deleteCafe(id: String, audit: AuditEntry?) async throws
}

extension CafeRepository {
    /// Saves a café without an audit entry (the command line, imports, tests).
    public func saveCafe(_ cafe: Cafe) async throws -> VersionedCafe { try await saveCafe(cafe, audit: nil) }

    public func replaceMenu(cafeID: String, with menu: Menu) async throws -> Int64 {
        try await replaceMenu(cafeID: cafeID, with: menu, audit: nil)
    }

    public func updateItem(cafeID: String, itemID: String, changes: [MenuItemChange]) async throws -> Int64 {
        try await updateItem(cafeID: cafeID, itemID: itemID, changes: changes, audit: nil)
    }

    public func deleteCafe(id: String) async throws { try await deleteCafe(id: id, audit: nil) }
}

/// Where access tokens are kept (hashed).
public protocol TokenRepository: Sendable {
    /// Creates a token (the spec already validated); the returned secret is shown once and never
    /// stored. `cafe_not_found` when it names a café that does not exist.
    /// `audit` (when given) is recorded in the same transaction (never the secret).
    func createToken(_ spec: TokenSpec, audit: AuditEntry?) async throws -> (token: AccessToken, secret: String)
    /// Every token, newest first, revoked ones included, each with when it was last used.
    func tokens() async throws -> [AccessToken]
    /// Revokes a token by its public id; throws `token_not_found`.
    func revokeToken(id: String, audit: AuditEntry?) async throws
    /// The live token whose secret this is, or nil.
    func authenticate(secret: String) async throws -> AccessToken?
}

extension TokenRepository {
    public func createToken(_ spec: TokenSpec) async throws -> (token: AccessToken, secret: String) {
        try await createToken(spec, audit: nil)
    }

    public func revokeToken(id: String) async throws { try await revokeToken(id: id, audit: nil) }

    /// Creates a kiosk, kitchen or ops token.
    public func createToken(role: Role, cafeID: String?, name: String?) async throws -> (token: AccessToken, secret: String) {
        try await createToken(TokenSpec(role: role, cafeID: cafeID, name: name))
    }
}
