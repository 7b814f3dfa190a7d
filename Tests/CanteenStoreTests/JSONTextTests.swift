@testable import CanteenStore
import CanteenCore
import Foundation
import GRDB
import Testing

@Suite("JSON columns written on the order path")
struct JSONTextTests {
    @Test("texts with quotes, backslashes, control characters and emoji decode back to the same values")
    func roundTrip() throws {
        let tricky = ["en": "Say \"hi\" \\ back\nslash\t\u{01}", "ja": "抹茶ラテ 🍵", "ar": "\u{200F}شاي"]
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(JSONText.object(tricky).utf8))
        #expect(decoded == tricky)
        let options = [SoldOption(groupID: "size", optionID: "large", names: LocalizedText(tricky), priceDelta: -75)]
        let back = try JSONDecoder().decode([SoldOption].self, from: Data(JSONText.options(options).utf8))
        #expect(back == options)
        #expect(try JSONDecoder().decode([SoldOption].self, from: Data(JSONText.options([]).utf8)).isEmpty)
    }
}

@Suite("Timestamps written on the order path")
struct StoredTimestampTests {
    @Test("they read back through GRDB as the same instant, to the millisecond")
    func roundTrip() throws {
        for seconds in [0.0, 1_795_000_000.123, 1_795_000_000.9994, 951_782_400.5, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = StoredTimestamp.text(date)
            let back = try #require(Date.fromDatabaseValue(text.databaseValue))
            #expect(abs(back.timeIntervalSince1970 - seconds) < 0.001, "\(text)")
            #expect(text.count == 23)
        }
    }

    @Test("the direct formatter writes what the RFC 3339 text gives, cut to milliseconds")
    func sameAsRFC3339() {
        for step in 0..<2000 {
            let date = Date(timeIntervalSince1970: -2_208_988_800 + Double(step) * 2_345_678.9876)
            let iso = RFC3339.utcMicroseconds(date)  // 2026-11-22T04:36:31.123456Z
            let expected = String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(12))
            #expect(StoredTimestamp.text(date) == expected, "\(iso)")
        }
    }
}
