import CanteenCore
import CanteenJSON
import Foundation

/// A café as the API shows it: the same fields as a café file (so it can be sent back with
/// `PUT`), plus the read-only `name`, `menuVersion` and `openNow`.
struct CafeDTO: Encodable {
    let cafe: Cafe
    let name: String
    let menuVersion: Int64
    let openNow: Bool

    init(_ versioned: VersionedCafe, presentation: Presentation, now: Date) {
        cafe = versioned.cafe
        name = presentation.text(versioned.cafe.names)
        menuVersion = versioned.menuVersion
        openNow = versioned.cafe.isOpen(at: now)
    }

    private enum Keys: String, CodingKey {
        case id, name, names, languages, timeZone, currency, defaultLocale, tax, hours, beaconRegion, beacons
        case pickup, display, networks, stations, fireByPrepTime, menuVersion, openNow
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(cafe.id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(cafe.names, forKey: .names)
        try container.encode(cafe.languages, forKey: .languages)
        try container.encode(cafe.timeZone, forKey: .timeZone)
        try container.encode(cafe.currency, forKey: .currency)
        try container.encode(cafe.defaultLocale, forKey: .defaultLocale)
        try container.encode(cafe.tax, forKey: .tax)
        var hours: [String: [[String: String]]] = [:]
        for (day, spans) in cafe.hours {
            hours[day.rawValue] = spans.map { ["open": $0.start.description, "close": $0.end.description] }
        }
        try container.encode(hours, forKey: .hours)
        try container.encode(
            [
                "uuid": JSONValue.string(cafe.beaconRegion.uuid.uuidString),
                "major": .int(Int64(cafe.beaconRegion.major)),
            ], forKey: .beaconRegion)
        try container.encode(cafe.beacons, forKey: .beacons)
        try container.encode(cafe.pickup, forKey: .pickup)
        try container.encode(cafe.display, forKey: .display)
        try container.encode(cafe.networks, forKey: .networks)
        try container.encode(cafe.kitchen.stations, forKey: .stations)
        try container.encode(cafe.kitchen.fireByPrepTime, forKey: .fireByPrepTime)
        try container.encode(menuVersion, forKey: .menuVersion)
        try container.encode(openNow, forKey: .openNow)
    }
}

/// `GET /v1/cafes`.
struct CafeListDTO: Encodable {
    let cafes: [CafeDTO]
}
