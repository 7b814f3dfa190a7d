import CanteenJSON
import Foundation

/// A beacon registered to a café: its iBeacon identity, label and calibrated power at 1 m.
///
/// The registry is the `beacon` table; a café document's `beacons` list is the same rows seen
/// from the café (its `beaconRegion` gives the UUID and major), so a registered beacon always
/// lies in its café's region.
public struct BeaconRegistration: Hashable, Sendable {
    /// The proximity UUID (the company).
    public var uuid: UUID
    /// The major (the café).
    public var major: UInt16
    /// The minor (the station).
    public var minor: UInt16
    public var cafeID: String
    public var label: String
    /// Calibrated RSSI at 1 m, in dBm (−127…20).
    public var measuredPower: Int

    /// The measured powers a beacon may have, in dBm.
    public static let measuredPowerRange: ClosedRange<Int> = -127...20

    public init(uuid: UUID, major: UInt16, minor: UInt16, cafeID: String, label: String, measuredPower: Int) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.cafeID = cafeID
        self.label = label
        self.measuredPower = measuredPower
    }

    /// `UUID/MAJOR/MINOR`, the UUID upper-case.
    public var identityText: String { "\(uuid.uuidString)/\(major)/\(minor)" }

    /// 404 `beacon_not_found` for `UUID/MAJOR/MINOR`.
    public static func notFound(uuid: UUID, major: UInt16, minor: UInt16) -> CanteenError {
        CanteenError.notFound(.beacon, "\(uuid.uuidString)/\(major)/\(minor)")
    }
}

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

extension BeaconRegistration {
    /// What the audit log shows of a beacon.
    public var audited: JSONValue {
        .object(["cafeId": .string(cafeID), "label": .string(label), "measuredPower": .int(Int64(measuredPower))])
    }
}
