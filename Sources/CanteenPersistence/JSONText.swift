import CanteenCore
import CanteenJSON

/// JSON text for the order rows' JSON columns, in the shape their `Codable` records decode,
/// written with `JSONWriter` rather than `JSONEncoder`: both engines write them for every order
/// line (on SQLite inside the single writer), so they stay lean.
public enum JSONText {
    /// `{"key":"value",…}` with keys sorted.
    public static func object(_ strings: [String: String]) -> String {
        String(decoding: JSONWriter.encode(strings, capacity: 256), as: UTF8.self)
    }

    /// `[{"groupID":…,"names":{…},"optionID":…,"priceDelta":…},…]` (the keys of `SoldOption`).
    public static func options(_ options: [SoldOption]) -> String {
        guard !options.isEmpty else { return "[]" }
        return String(decoding: JSONWriter.encode(options.map(StoredOption.init), capacity: 256), as: UTF8.self)
    }

    private struct StoredOption: JSONWritable {
        let option: SoldOption

        func write(to json: inout JSONWriter) {
            json.object { object in
                object.field("groupID", option.groupID)
                object.field("names", option.names.translations)
                object.field("optionID", option.optionID)
                object.field("priceDelta", option.priceDelta)
            }
        }
    }
}

/// Each item's names as an order line stores them (`JSONText.object`), per café and item, written
/// once per batch of orders: the same for every line of the item while the batch holds its café's
/// menu. Both engines' order paths keep one per batch.
public struct StoredItemNames {
    private var texts: [String: [String: String]] = [:]

    public init() {}

    /// `line`'s names as its row stores them.
    public mutating func text(of line: OrderLine, cafeID: String) -> String {
        if let text = texts[cafeID]?[line.itemID] { return text }
        let text = JSONText.object(line.names.translations)
        texts[cafeID, default: [:]][line.itemID] = text
        return text
    }
}
