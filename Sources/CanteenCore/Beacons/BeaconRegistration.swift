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

extension BeaconRegistration {
    /// What the audit log shows of a beacon.
    public var audited: JSONValue {
        .object(["cafeId": .string(cafeID), "label": .string(label), "measuredPower": .int(Int64(measuredPower))])
    }
}
