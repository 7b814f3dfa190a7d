import CanteenCore
import CanteenPersistence
import Foundation
import Testing

@Suite("JSON columns written on the order path (both engines)")
struct JSONTextTests {
    @Test("texts with quotes, backslashes, slashes, control characters and emoji decode back to the same values")
    func roundTrip() throws {
        let tricky = ["en": "Say \"hi\" \\ back/slash\n\t\u{01}", "ja": "抹茶ラテ 🍵", "ar": "\u{200F}شاي"]
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(JSONText.object(tricky).utf8))
        #expect(decoded == tricky)
        let options = [SoldOption(groupID: "size", optionID: "large", names: LocalizedText(tricky), priceDelta: -75)]
        let back = try JSONDecoder().decode([SoldOption].self, from: Data(JSONText.options(options).utf8))
        #expect(back == options)
        #expect(try JSONDecoder().decode([SoldOption].self, from: Data(JSONText.options([]).utf8)).isEmpty)
    }

    @Test("an object's keys are written in sorted order, as the records' encoder writes them")
    func sortedKeys() {
        #expect(
            JSONText.object(["fr": "Café", "en": "Coffee", "ar": "قهوة"]) == #"{"ar":"قهوة","en":"Coffee","fr":"Café"}"#
        )
        #expect(JSONText.options([]) == "[]")
    }

    @Test("an item's names are kept per café: the same item id in two cafés keeps each café's names")
    func namesPerCafe() throws {
        func line(_ item: String, _ name: String) -> OrderLine {
            OrderLine(
                itemID: item, names: LocalizedText(["en": name]), station: "bar", quantity: 1, options: [], note: nil,
                unitPrice: 100, lineTotal: 100)
        }
        var names = StoredItemNames()
        #expect(names.text(of: line("latte", "Latte"), cafeID: "a") == #"{"en":"Latte"}"#)
        #expect(names.text(of: line("latte", "Milchkaffee"), cafeID: "b") == #"{"en":"Milchkaffee"}"#)
        #expect(names.text(of: line("tea", "Tea"), cafeID: "a") == #"{"en":"Tea"}"#)
        // Within a batch an item's names do not change, so the first text is kept.
        #expect(names.text(of: line("latte", "Latte"), cafeID: "a") == #"{"en":"Latte"}"#)
    }
}
