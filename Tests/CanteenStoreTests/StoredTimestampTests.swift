import Foundation
import GRDB
import Testing

@testable import CanteenStore

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
        #expect(StoredTimestamp.text(Date(timeIntervalSince1970: 1_795_000_000.9994)) == "2026-11-18 11:06:40.999")
        #expect(StoredTimestamp.text(Date(timeIntervalSince1970: -86_400.25)) == "1969-12-30 23:59:59.750")
    }
}
