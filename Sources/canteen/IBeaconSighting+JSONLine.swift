import Beacons
import CanteenCore
import CanteenJSON
import Foundation

// MARK: - JSON line

extension IBeaconSighting {
    /// The sighting as one JSON line, keys in this order: `time` (RFC 3339 UTC, microseconds),
    /// `address`, `uuid` (upper-case), `major`, `minor`, `txPower`, `rssi` (number or null).
    public var jsonLine: String {
        let rssiText = rssi.map { String($0) } ?? "null"
        return "{\"time\": \"\(RFC3339.utcMicroseconds(time))\", \"address\": \"\(address)\", "
            + "\"uuid\": \"\(identity.uuid.uuidString)\", \"major\": \(identity.major), "
            + "\"minor\": \(identity.minor), \"txPower\": \(txPower), \"rssi\": \(rssiText)}"
    }
}
