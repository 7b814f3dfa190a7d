import CanteenCore
import CanteenJSON
import Foundation

/// Beacons of the test cafés: `testcafe` has major 900 and `othercafe` 901, both with minor 1
/// ("Door", −59 dBm at 1 m), under the company UUID.
enum TestBeacons {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// One sighting every 0.5 s from `from` to `to` seconds after `start`.
    static func sightings(
        major: Int64, minor: Int64 = 1, uuid: String = uuid, rssi: Int64,
        from: Double, to: Double
    ) -> [JSONValue] {
        stride(from: from, through: to, by: 0.5).map { offset in
            .object([
                "uuid": .string(uuid), "major": .int(major), "minor": .int(minor), "rssi": .int(rssi),
                "time": .string(time(offset)),
            ])
        }
    }

    /// `start + offset` in RFC 3339 with milliseconds.
    static func time(_ offset: Double) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(start.addingTimeInterval(offset))
    }

    /// `{"sightings": [...], "currentCafeId": ...}`.
    static func body(_ sightings: [JSONValue], current: String? = nil) -> JSONValue {
        var object: [String: JSONValue] = ["sightings": .array(sightings)]
        if let current { object["currentCafeId"] = .string(current) }
        return .object(object)
    }
}
