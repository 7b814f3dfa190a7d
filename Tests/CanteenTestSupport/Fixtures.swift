import CanteenApp
import CanteenCore
import CanteenJSON
import Foundation

/// Small, valid café documents for tests, as JSON values that a test can bend.
public enum Fixtures {
    /// The repository's top folder (found from this file's path).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The sample cafés shipped in `Menus/`.
    public static let menusDirectory = repositoryRoot.appendingPathComponent("Menus")

    /// A test café in Chicago: USD, tax 10.25 % on top, open 07:00–19:00 on weekdays,
    /// breakfast 07:00–10:30, three categories, a latte with size and extra-shot groups.
    public static func cafeDocument(
        id: String = "testcafe", currency: String = "USD",
        timeZone: String = "America/Chicago", major: Int64 = 900
    ) -> [String: JSONValue] {
        let names: (String, String) -> JSONValue = { en, es in .object(["en": .string(en), "es": .string(es)]) }
        let weekday: JSONValue = .array([.object(["open": "07:00", "close": "19:00"])])
        return [
            "id": .string(id),
            "languages": ["en", "es"],
            "names": names("Test Café", "Café de prueba"),
            "timeZone": .string(timeZone),
            "currency": .string(currency),
            "defaultLocale": "en_US",
            "tax": ["rateBasisPoints": 1025, "included": false],
            "hours": .object([
                "monday": weekday, "tuesday": weekday, "wednesday": weekday,
                "thursday": weekday, "friday": weekday,
            ]),
            "beaconRegion": ["uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": .int(major)],
            "beacons": [["minor": 1, "label": "Door", "measuredPower": -59]],
            "pickup": ["slotMinutes": 15, "capacity": 20, "capacityUnit": "orders", "leadMinutes": 10],
            "dayParts": [
                ["id": "breakfast", "names": names("Breakfast", "Desayuno"), "start": "07:00", "end": "10:30"]
            ],
            "categories": [
                ["id": "coffee", "names": names("Coffee", "Café")],
                ["id": "food", "names": names("Food", "Comida")],
            ],
            "items": [
                [
                    "id": "latte", "category": "coffee", "names": names("Latte", "Café con leche"),
                    "descriptions": names("Espresso and milk", "Espresso con leche"),
                    "price": 450, "station": "bar", "allergens": ["milk"],
                    "modifierGroups": [
                        [
                            "id": "size", "names": names("Size", "Tamaño"), "min": 1, "max": 1,
                            "options": [
                                ["id": "small", "names": names("Small", "Pequeño"), "priceDelta": 0],
                                ["id": "large", "names": names("Large", "Grande"), "priceDelta": 60],
                            ],
                        ],
                        [
                            "id": "shots", "names": names("Extra shot", "Carga extra"), "min": 0, "max": 3,
                            "options": [
                                ["id": "shot", "names": names("Shot", "Carga"), "priceDelta": 75],
                                [
                                    "id": "decaf-shot", "names": names("Decaf shot", "Carga descafeinada"),
                                    "priceDelta": 75,
                                ],
                            ],
                        ],
                    ],
                ],
                [
                    "id": "burrito", "category": "food", "names": names("Breakfast burrito", "Burrito de desayuno"),
                    "descriptions": names("Eggs, beans, salsa", "Huevos, frijoles, salsa"),
                    "price": 895, "station": "grill", "allergens": ["egg", "gluten"], "dayParts": ["breakfast"],
                ],
                [
                    "id": "salad", "category": "food", "names": names("Garden salad", "Ensalada"),
                    "descriptions": names("Greens and vinaigrette", "Verdes con vinagreta"),
                    "price": 750, "station": "cold", "allergens": [],
                ],
            ],
        ]
    }

    /// The menu part of `cafeDocument` (what `PUT /v1/cafes/{id}/menu` takes).
    public static func menuDocument(_ document: [String: JSONValue] = cafeDocument()) -> [String: JSONValue] {
        document.filter { CafeDocument.menuFields.contains($0.key) }
    }

    /// The configuration part of `cafeDocument` (what `PUT /v1/cafes/{id}` takes).
    public static func cafeConfiguration(_ document: [String: JSONValue] = cafeDocument()) -> [String: JSONValue] {
        document.filter { !CafeDocument.menuFields.contains($0.key) }
    }

    /// A parsed test café and its menu.
    public static func cafeAndMenu(id: String = "testcafe", major: Int64 = 900) throws -> (cafe: Cafe, menu: Menu) {
        try CafeDocument.parse(.object(cafeDocument(id: id, major: major)))
    }

    /// Monday 2026-11-23 at `hour:minute` in America/Chicago (UTC−6).
    public static func chicagoMonday(hour: Int, minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Chicago")!
        return calendar.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: hour, minute: minute))!
    }
}
