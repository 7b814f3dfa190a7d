import CanteenCore
import Foundation

/// A registered beacon on the wire: `{uuid, major, minor, cafeId, label, measuredPower}`.
struct BeaconDTO: Encodable {
    let uuid: String
    let major: Int
    let minor: Int
    let cafeId: String
    let label: String
    let measuredPower: Int

    init(_ beacon: BeaconRegistration) {
        uuid = beacon.uuid.uuidString
        major = Int(beacon.major)
        minor = Int(beacon.minor)
        cafeId = beacon.cafeID
        label = beacon.label
        measuredPower = beacon.measuredPower
    }
}

/// `GET /v1/beacons`.
struct BeaconListDTO: Encodable {
    let beacons: [BeaconDTO]
}
