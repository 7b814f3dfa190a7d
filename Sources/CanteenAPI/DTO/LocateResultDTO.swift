import Beacons
import CanteenCore
import Foundation

/// `POST /v1/locate`: `{"cafeId", "proximity", "distanceMeters", "beacon", "reason"}`, with
/// explicit nulls when no café (or no distance) is known.
struct LocateResultDTO: Encodable {
    let result: LocateResult

    private enum Keys: String, CodingKey { case cafeId, proximity, distanceMeters, beacon, reason }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(result.cafeID, forKey: .cafeId)
        try container.encode(result.proximity.rawValue, forKey: .proximity)
        // Centimetres are all a beacon can tell; a non-finite distance is no distance.
        let distance = result.distanceMeters.flatMap { $0.isFinite ? ($0 * 100).rounded() / 100 : nil }
        try container.encode(distance, forKey: .distanceMeters)
        try container.encode(result.beacon.map { BeaconDTO(BeaconRegistration($0)) }, forKey: .beacon)
        try container.encode(result.reason.rawValue, forKey: .reason)
    }
}
