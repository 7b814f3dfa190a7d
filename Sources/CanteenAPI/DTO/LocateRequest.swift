import Beacons
import CanteenCore
import CanteenJSON
import Foundation

/// The body of `POST /v1/locate` and `POST /v1/users/{userId}/cafe`:
/// `{"sightings": [{"uuid", "major", "minor", "rssi", "txPower", "time"}], "currentCafeId"}`.
struct LocateRequest: Sendable {
    /// The most sightings one request may carry.
    static let maxSightings = 500

    /// Nil when the body had no `sightings` field; an empty list when the device saw nothing
    /// (or may not scan: location permission denied).
    var sightings: [LocateSighting]?
    var currentCafeID: String?

    /// No body at all.
    static let empty = LocateRequest(sightings: nil, currentCafeID: nil)

    /// Reads the body; `rssi` and `txPower` may be null or absent, `time` defaults to `now`.
    /// Every problem names its field (`sightings[3].rssi`).
    static func parse(_ body: JSONValue, now: Date, sightingsRequired: Bool) throws(ValidationError) -> LocateRequest {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(body, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let currentCafeID = reader.string("currentCafeId", required: false)
        let hasSightings = reader.has("sightings")
        let elements = reader.elements("sightings", required: sightingsRequired)
        reader.finish()
        if elements.count > maxSightings {
            problems.add(
                "sightings", "at most \(maxSightings) sightings per request, found \(elements.count)",
                code: .tooManySightings)
            throw ValidationError(problems: problems.all)
        }
        var sightings: [LocateSighting] = []
        for (path, value) in elements {
            if let sighting = readSighting(value, path: path, now: now, problems: problems) {
                sightings.append(sighting)
            }
        }
        try problems.throwIfAny()
        return LocateRequest(sightings: hasSightings ? sightings : nil, currentCafeID: currentCafeID)
    }

    private static func readSighting(
        _ value: JSONValue, path: String, now: Date,
        problems: ValidationProblems
    ) -> LocateSighting? {
        guard var reader = JSONObjectReader(value, path: path, problems: problems) else { return nil }
        let uuidText = reader.string("uuid")
        let major = reader.integer("major", in: 0...65_535)
        let minor = reader.integer("minor", in: 0...65_535)
        let rssi = reader.integer("rssi", required: false, in: -127...20)
        let txPower = reader.integer("txPower", required: false, in: -127...20)
        let timeText = reader.string("time", required: false)
        reader.finish()
        var uuid: UUID?
        if let uuidText {
            uuid = UUID(uuidString: uuidText)
            if uuid == nil { problems.add(reader.childPath("uuid"), "'\(uuidText.prefix(64))' is not a UUID") }
        }
        var time = now
        if let timeText {
            if let parsed = RFC3339.parse(timeText) {
                time = parsed
            } else {
                problems.add(
                    reader.childPath("time"),
                    "'\(timeText.prefix(64))' is not an RFC 3339 date-time such as 2026-11-23T15:00:00.250Z")
            }
        }
        guard let uuid, let major, let minor else { return nil }
        return LocateSighting(
            identity: BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor)),
            rssi: rssi.map { Int($0) }, txPower: txPower.map { Int($0) }, time: time)
    }
}
