import CanteenCore
import Foundation

/// A café's menu for one reader at one instant: texts resolved, availability decided.
struct MenuDTO: Encodable {
    struct Category: Encodable {
        let id: String
        let name: String
        let items: [Item]
    }

    struct Item: Encodable {
        let id: String
        let name: String
        let description: String
        let price: MoneyDTO
        let station: String
        let allergens: [String]
        let dayParts: [String]
        let available: Bool
        let unavailableReason: String?
        let unavailableLabel: String?
        let soldOutUntil: Date?
        let modifierGroups: [Group]
        /// How long one takes to prepare, in seconds (the item's own or its station's), when known.
        let prepSeconds: Int?
        /// How many are made each day, for a limited dish.
        let dailyQuantity: Int?
        /// What is left of it today, for a limited dish.
        let remaining: Int?
    }

    struct Group: Encodable {
        let id: String
        let name: String
        let min: Int
        let max: Int
        let options: [Option]
    }

    struct Option: Encodable {
        let id: String
        let name: String
        let priceDelta: MoneyDTO
    }

    struct DayPartDTO: Encodable {
        let id: String
        let name: String
        let start: String
        let end: String
    }

    let cafeId: String
    let version: Int64
    let currency: String
    let dayParts: [DayPartDTO]
    let categories: [Category]

    /// The menu at `now`; `remaining` is what is stored as left today of limited items
    /// (`DailyStockRepository.remaining`).
    init(_ stored: CafeMenu, remaining stock: [String: Int], presentation: Presentation, now: Date) {
        let cafe = stored.cafe
        cafeId = cafe.id
        version = stored.version
        currency = cafe.currency.code
        dayParts = stored.menu.dayParts.map {
            DayPartDTO(
                id: $0.id, name: presentation.text($0.names), start: $0.start.description, end: $0.end.description)
        }
        let localTime = cafe.localMoment(of: now).time
        let itemsByCategory = Dictionary(grouping: stored.menu.items, by: \.category)
        let timing = KitchenTiming(cafe: cafe, menu: stored.menu)
        categories = stored.menu.categories.map { category in
            Category(
                id: category.id, name: presentation.text(category.names),
                items: (itemsByCategory[category.id] ?? []).map { item in
                    let soldOut = stored.soldOut[item.id]
                    let remaining = DailyStock.remaining(of: item, stored: stock[item.id])
                    let reason =
                        stored.menu.unavailability(of: item, soldOut: soldOut, localTime: localTime, at: now)
                        ?? (remaining == 0 ? .soldOut : nil)
                    return Item(
                        id: item.id, name: presentation.text(item.names),
                        description: presentation.text(item.descriptions),
                        price: presentation.money(item.price, cafe.currency),
                        station: item.station, allergens: item.allergens, dayParts: item.dayParts,
                        available: reason == nil, unavailableReason: reason?.rawValue,
                        unavailableLabel: reason.map {
                            presentation.label($0 == .soldOut ? "label.sold_out" : "label.unavailable")
                        },
                        soldOutUntil: reason == .soldOut ? soldOut?.until : nil,
                        modifierGroups: item.modifierGroups.map { group in
                            Group(
                                id: group.id, name: presentation.text(group.names), min: group.min, max: group.max,
                                options: group.options.map {
                                    Option(
                                        id: $0.id, name: presentation.text($0.names),
                                        priceDelta: presentation.money($0.priceDelta, cafe.currency))
                                })
                        },
                        prepSeconds: timing.prepSeconds(of: item), dailyQuantity: item.dailyQuantity,
                        remaining: remaining)
                })
        }
    }

    private enum CodingKeys: String, CodingKey { case cafeId, version, currency, dayParts, categories }
}

extension MenuDTO {
    /// The `ETag` of the menu `GET /v1/cafes/{id}/menu` serves at `now` for `variant`, worked out
    /// without building the body (a revalidating kiosk gets its 304 without one; café
    /// resolution reports the same tag). A strong validator: the version, the reader's language
    /// and locale, which items are unavailable right now (a day part starting or a sold-out
    /// mark expiring changes the body without a new version), and what is left of limited dishes.
    static func etag(_ stored: CafeMenu, remaining stock: [String: Int], variant: String, now: Date) -> String {
        let localTime = stored.cafe.localMoment(of: now).time
        let itemsByCategory = Dictionary(grouping: stored.menu.items, by: \.category)
        var hasher = FNV1a()
        for category in stored.menu.categories {
            for item in itemsByCategory[category.id] ?? [] {
                if let remaining = DailyStock.remaining(of: item, stored: stock[item.id]) {
                    hasher.add("\(item.id)=\(remaining)")
                    hasher.add("\u{1}")
                }
                guard
                    stored.menu.unavailability(
                        of: item, soldOut: stored.soldOut[item.id], localTime: localTime,
                        at: now) != nil
                else { continue }
                hasher.add(item.id)
                hasher.add("\u{0}")
            }
        }
        return "\"\(stored.cafe.id)-v\(stored.version)-\(variant)-\(String(hasher.value, radix: 16))\""
    }
}

/// A small stable hash (FNV-1a, 64-bit) for validators that must not change between runs.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
    }
}
