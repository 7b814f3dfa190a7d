import CanteenCore
import Foundation
import Testing

@testable import CanteenFormat

@Suite("Checking formatting inputs")
struct FormatInputTests {
    /// The code of the `CanteenError` that `body` throws, nil when it succeeds.
    func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? CanteenError)?.code.rawValue ?? "not a CanteenError: \(error)"
        }
    }

    @Test("well-formed locale identifiers are accepted, malformed ones rejected")
    func locales() {
        #expect(code { _ = try FormatInput.locale("hi_IN") } == nil)
        #expect(code { _ = try FormatInput.locale("ar-EG-u-nu-latn") } == nil)
        for bad in ["", "e", "en US", "en--US", "123", "en_US.UTF-8", "toolongsubtag-en"] {
            #expect(code { _ = try FormatInput.locale(bad) } == "invalid_locale", "\(bad)")
        }
    }

    @Test("IANA zones are accepted; abbreviations and offsets are not")
    func timeZones() {
        #expect(code { _ = try FormatInput.timeZone("America/Chicago") } == nil)
        #expect(code { _ = try FormatInput.timeZone("UTC") } == nil)
        for bad in ["EST", "GMT+5", "Mars/Olympus", "", "america/chicago"] {
            #expect(code { _ = try FormatInput.timeZone(bad) } == "unknown_time_zone", "\(bad)")
        }
    }

    @Test("RFC 3339 timestamps with offsets and fractions are read")
    func timestamps() throws {
        let withOffset = try FormatInput.instant("2026-03-08T01:45:00-06:00")
        let utc = try FormatInput.instant("2026-03-08T07:45:00Z")
        #expect(withOffset == utc)
        #expect(try FormatInput.instant("2026-03-08T07:45:00.500Z").timeIntervalSince(utc) == 0.5)
        for bad in ["2026-03-08", "yesterday", "", "2026-03-08T07:45:00"] {
            #expect(code { _ = try FormatInput.instant(bad) } == "invalid_timestamp", "\(bad)")
        }
    }

    @Test("minor units are whole numbers within Int64")
    func amounts() throws {
        #expect(try FormatInput.minorUnits("-450") == -450)
        #expect(try FormatInput.minorUnits("9223372036854775807") == Int64.max)
        for bad in ["4.50", "9223372036854775808", "", "12a"] {
            #expect(code { _ = try FormatInput.minorUnits(bad) } == "invalid_amount", "\(bad)")
        }
    }
}
