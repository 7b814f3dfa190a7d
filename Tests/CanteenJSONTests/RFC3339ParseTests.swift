import CanteenJSON
import Foundation
import Testing

/// `RFC3339.parse` reads what RFC 3339 §5.6 calls a `date-time` (and JSON Schema's
/// `format: date-time` accepts): openapi.yaml types every timestamp a client sends that way.
@Suite("RFC 3339 date-times as JSON Schema's date-time format has them")
struct RFC3339ParseTests {
    @Test(
        "date-times of RFC 3339 are read, whatever their case, offset, fraction or leap second",
        arguments: [
            ("2026-11-22T09:30:00Z", 1_795_339_800.0),
            ("2026-11-22t09:30:00z", 1_795_339_800.0),
            ("2026-11-22T03:30:00-06:00", 1_795_339_800.0),
            ("9059-11-09T05:23:40-18:13", 223_734_267_400.0),
            ("2026-11-22T09:30:00+23:59", 1_795_253_460.0),
            ("2026-11-22T09:30:00.25Z", 1_795_339_800.25),
            ("2026-11-22T09:30:00.123456789012345Z", 1_795_339_800.123457),
            ("1998-12-31T23:59:60Z", 915_148_800.0),
            ("1998-12-31T15:59:60.5-08:00", 915_148_800.5),
            ("0000-01-01T00:00:00Z", -62_167_219_200.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ])
    func reads(_ text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_01, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test(
        "anything else is refused: impossible dates and times, loose offsets, missing parts",
        arguments: [
            "2026-02-30T09:30:00Z", "2025-02-29T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T09:60:00Z",
            "2026-11-22T09:30:00+0100", "2026-11-22T09:30:00+1:00", "2026-11-22T09:30:00+01:60",
            "2026-11-22T09:30:00+24:00", "2026-11-22T22:59:60Z", "2026-11-22 09:30:00Z", "2026-11-22T09:30Z",
            "2026-11-22T09:30:00", "2026-11-22T09:30:00.Z", "2026-11-22T09:30:00Z ", " 2026-11-22T09:30:00Z",
            "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z", "20261122T093000Z",
            "2026-11-22T09:30:00ZZ", "２０２６-11-22T09:30:00Z", "",
        ])
    func refuses(_ text: String) {
        #expect(RFC3339.parse(text) == nil, "\(text) was read")
    }
}
