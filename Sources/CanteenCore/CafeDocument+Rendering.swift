import CanteenJSON
import Foundation

extension CafeDocument {
    /// A menu as a café file writes it (what `PUT /v1/cafes/{id}/menu` takes back): every text
    /// in every language, prices in minor units.
    public static func render(_ menu: Menu) -> JSONValue {
        jsonValue(menu)
    }

    /// A café's configuration as a café file writes it (what `PUT /v1/cafes/{id}` takes back).
    public static func render(_ cafe: Cafe) -> JSONValue {
        var hours: [String: JSONValue] = [:]
        for (day, spans) in cafe.hours {
            hours[day.rawValue] = .array(
                spans.map {
                    .object(["open": .string($0.start.description), "close": .string($0.end.description)])
                })
        }
        return .object([
            "id": .string(cafe.id),
            "languages": .array(cafe.languages.map(JSONValue.string)),
            "names": jsonValue(cafe.names),
            "timeZone": jsonValue(cafe.timeZone),
            "currency": jsonValue(cafe.currency),
            "defaultLocale": .string(cafe.defaultLocale),
            "tax": jsonValue(cafe.tax),
            "hours": .object(hours),
            "beaconRegion": .object([
                "uuid": .string(cafe.beaconRegion.uuid.uuidString),
                "major": .int(Int64(cafe.beaconRegion.major)),
            ]),
            "beacons": jsonValue(cafe.beacons),
            "pickup": jsonValue(cafe.pickup),
            "display": jsonValue(cafe.display),
            "stations": jsonValue(cafe.kitchen.stations),
            "fireByPrepTime": .bool(cafe.kitchen.fireByPrepTime),
            "networks": jsonValue(cafe.networks),
        ])
    }

    /// A value's `Codable` form as JSON (these types always encode).
    private static func jsonValue(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(value), let parsed = try? JSONValue.parse(data) else { return .null }
        return parsed
    }
}
