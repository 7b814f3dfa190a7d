import CanteenJSON
import Foundation

/// Where the beacon registry is kept.
public protocol BeaconRepository: Sendable {
    /// Every registered beacon, ordered by UUID, major and minor.
    func beacons() async throws -> [BeaconRegistration]
    /// One beacon, or nil.
    func beacon(uuid: UUID, major: UInt16, minor: UInt16) async throws -> BeaconRegistration?
    /// Registers or replaces a beacon; returns whether it was new. Throws 422 naming `cafeId`
    /// when the café does not exist or the beacon lies outside the café's beacon region.
    /// `audit` (when given) is recorded in the same transaction.
    @discardableResult
    func saveBeacon(_ beacon: BeaconRegistration, audit: AuditEntry?) async throws -> Bool
    /// Removes a beacon; throws `beacon_not_found` when it is not registered.
    func deleteBeacon(uuid: UUID, major: UInt16, minor: UInt16, audit: AuditEntry?) async throws
}

extension BeaconRepository {
    @discardableResult
    public func saveBeacon(_ beacon: BeaconRegistration) async throws -> Bool {
        try await saveBeacon(beacon, audit: nil)
    }

    public func deleteBeacon(uuid: UUID, major: UInt16, minor: UInt16) async throws {
        try await deleteBeacon(uuid: uuid, major: major, minor: minor, audit: nil)
    }
}
