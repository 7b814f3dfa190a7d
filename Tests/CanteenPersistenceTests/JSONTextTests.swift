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
}
