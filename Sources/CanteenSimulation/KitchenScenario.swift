import CanteenCore
import Foundation

/// One simulated service: how orders arrive, what they ask for, and the cooks who make them.
public struct KitchenScenario: Sendable {
    /// One dish: its station and its prep time.
    public struct Dish: Sendable {
        public let id: String
        public let station: String
        public let prepSeconds: Int
        /// How often it is in an order, against the other dishes.
        public let weight: Double
    }

    public let name: String
    /// How long orders arrive, in simulated minutes.
    public let minutes: Double
    /// Orders per minute at the start and end, and at the peak.
    public let baseRate: Double
    public let peakRate: Double
    /// Fraction of the service spent rising to the peak, and holding it (then as long falling).
    public let rise: Double
    public let hold: Double
    public let dishes: [Dish]
    /// Cooks per station, each working one ticket at a time.
    public let cooks: [String: Int]
    /// How far a cook's time for a ticket strays from its prep time, either way (0.15: ±15 %).
    public let spread: Double

    /// The same service compressed or stretched to `minutes` (its rates' shape kept).
    public func lasting(minutes: Double) -> KitchenScenario {
        KitchenScenario(
            name: name, minutes: minutes, baseRate: baseRate, peakRate: peakRate, rise: rise, hold: hold,
            dishes: dishes, cooks: cooks, spread: spread)
    }

    /// Orders per minute at `minute` after the start: base, rising linearly to the peak, holding,
    /// then falling back.
    public func rate(at minute: Double) -> Double {
        let rising = minutes * rise
        let peakEnd = rising + minutes * hold
        let falling = max(minutes - peakEnd, 1)
        if minute < rising { return baseRate + (peakRate - baseRate) * minute / rising }
        if minute < peakEnd { return peakRate }
        return max(baseRate, peakRate - (peakRate - baseRate) * (minute - peakEnd) / falling)
    }

    /// The dishes of one café: a grill (burgers, 6–7 min), a cold station (salads, 3–4 min)
    /// and a bar (drinks, 1.5–2.5 min).
    public static let dishes: [Dish] = [
        Dish(id: "burger", station: "grill", prepSeconds: 420, weight: 3),
        Dish(id: "melt", station: "grill", prepSeconds: 360, weight: 2),
        Dish(id: "salad", station: "cold", prepSeconds: 240, weight: 2),
        Dish(id: "wrap", station: "cold", prepSeconds: 180, weight: 1),
        Dish(id: "latte", station: "bar", prepSeconds: 120, weight: 2),
        Dish(id: "smoothie", station: "bar", prepSeconds: 150, weight: 1),
    ]

    /// A quiet hour: orders well within what the kitchen gets through.
    public static let quiet = KitchenScenario(
        name: "quiet", minutes: 60, baseRate: 0.3, peakRate: 0.3, rise: 0.5, hold: 0, dishes: dishes,
        cooks: ["grill": 3, "cold": 2, "bar": 2], spread: 0.15)

    /// A lunch rush: orders rising to more than the grill gets through, holding, then falling.
    public static let rush = KitchenScenario(
        name: "rush", minutes: 75, baseRate: 0.4, peakRate: 1.3, rise: 0.35, hold: 0.3, dishes: dishes,
        cooks: ["grill": 3, "cold": 2, "bar": 2], spread: 0.15)

    public static let all = [quiet, rush]

    /// The scenario's café as a café file (configuration and menu), open all day in `timeZone`,
    /// with `capacity` orders per 15-minute window and no lead time.
    public func cafeDocument(id: String, timeZone: String) -> [String: JSONValue] {
        let names: (String) -> JSONValue = { .object(["en": .string($0)]) }
        let allDay: JSONValue = [["open": "00:00", "close": "24:00"]]
        var hours: [String: JSONValue] = [:]
        for day in Weekday.allCases { hours[day.rawValue] = allDay }
        return [
            "id": .string(id), "languages": ["en"], "names": names("Simulated \(name)"), "timeZone": .string(timeZone),
            "currency": "USD", "defaultLocale": "en_US", "tax": ["rateBasisPoints": 0, "included": true],
            "hours": .object(hours), "beaconRegion": ["uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 65000],
            "pickup": ["slotMinutes": 15, "capacity": 1000, "capacityUnit": "orders", "leadMinutes": 0],
            "fireByPrepTime": true,
            "categories": [["id": "food", "names": names("Food")]],
            "items": .array(
                dishes.map { dish in
                    .object([
                        "id": .string(dish.id), "category": "food", "names": names(dish.id),
                        "descriptions": names(dish.id),
                        "price": 500, "station": .string(dish.station), "allergens": [],
                        "prepSeconds": .int(Int64(dish.prepSeconds)),
                    ])
                }),
        ]
    }
}
