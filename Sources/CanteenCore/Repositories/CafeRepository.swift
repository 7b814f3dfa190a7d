import CanteenJSON
import Foundation

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
