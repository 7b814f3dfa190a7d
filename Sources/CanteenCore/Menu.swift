/// A café's menu: its day parts, categories and items, in display order.
public struct Menu: Hashable, Sendable, Codable {
    public var dayParts: [DayPart]
    public var categories: [MenuCategory]
    public var items: [MenuItem]

    public init(dayParts: [DayPart], categories: [MenuCategory], items: [MenuItem]) {
        self.dayParts = dayParts
        self.categories = categories
        self.items = items
    }

    public func item(_ id: String) -> MenuItem? { items.first { $0.id == id } }

    public func dayPart(_ id: String) -> DayPart? { dayParts.first { $0.id == id } }
}

/// A named span of the day some items are limited to (breakfast 07:00–10:30).
public struct DayPart: Hashable, Sendable, Codable {
    public var id: String
    public var names: LocalizedText
    public var start: LocalTime
    public var end: LocalTime

    public init(id: String, names: LocalizedText, start: LocalTime, end: LocalTime) {
        self.id = id
        self.names = names
        self.start = start
        self.end = end
    }

    public var range: LocalTimeRange { LocalTimeRange(start: start, end: end) }
}

/// A section of the menu (coffee, mains, desserts).
public struct MenuCategory: Hashable, Sendable, Codable {
    public var id: String
    public var names: LocalizedText

    public init(id: String, names: LocalizedText) {
        self.id = id
        self.names = names
    }
}

/// Something a guest can order.
public struct MenuItem: Hashable, Sendable, Codable {
    public var id: String
    public var category: String
    public var names: LocalizedText
    public var descriptions: LocalizedText
    /// Price in minor units of the café's currency (tax included or not per the café).
    public var price: Int64
    /// The kitchen station that prepares it (`bar`, `grill`, `cold`).
    public var station: String
    public var allergens: [String]
    /// Day parts the item is limited to; empty means all day.
    public var dayParts: [String]
    public var modifierGroups: [ModifierGroup]
    /// How long one takes to prepare, in seconds; nil: the station's default, if it has one.
    public var prepSeconds: Int?
    /// How many are made each day (a fixed batch); nil: unlimited. What is left is kept per
    /// café-local day (`DailyStock`).
    public var dailyQuantity: Int?

    public init(
        id: String, category: String, names: LocalizedText, descriptions: LocalizedText,
        price: Int64, station: String, allergens: [String], dayParts: [String],
        modifierGroups: [ModifierGroup], prepSeconds: Int? = nil, dailyQuantity: Int? = nil
    ) {
        self.id = id
        self.category = category
        self.names = names
        self.descriptions = descriptions
        self.price = price
        self.station = station
        self.allergens = allergens
        self.dayParts = dayParts
        self.modifierGroups = modifierGroups
        self.prepSeconds = prepSeconds
        self.dailyQuantity = dailyQuantity
    }
}

/// A choice on an item (size, milk) with how many options may be picked.
public struct ModifierGroup: Hashable, Sendable, Codable {
    public var id: String
    public var names: LocalizedText
    public var min: Int
    public var max: Int
    public var options: [ModifierOption]

    public init(id: String, names: LocalizedText, min: Int, max: Int, options: [ModifierOption]) {
        self.id = id
        self.names = names
        self.min = min
        self.max = max
        self.options = options
    }
}

/// One option of a modifier group and what it adds to the price (minor units, may be negative).
public struct ModifierOption: Hashable, Sendable, Codable {
    public var id: String
    public var names: LocalizedText
    public var priceDelta: Int64

    public init(id: String, names: LocalizedText, priceDelta: Int64) {
        self.id = id
        self.names = names
        self.priceDelta = priceDelta
    }
}
