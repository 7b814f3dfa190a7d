import CanteenCore
import Foundation
import Testing

@testable import CanteenFormat

@Suite("Pickup windows in the café's time zone and the reader's locale")
struct PickupWindowFormatterTests {
    let formatter = PickupWindowFormatter(cacheCapacity: 64)

    /// (time zone, start, end, locale, expected): golden strings printed by this toolchain
    /// (ICU 76.1). U+2009 thin spaces surround the en dash; U+202F precedes AM/PM.
    static let windows: [(timeZone: String, start: String, end: String, locale: String, expected: String)] = [
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "en_US",
            "1:45\u{2009}\u{2013}\u{2009}3:00\u{202F}AM"
        ),  // spring forward 01:45 CST - 03:00 CDT
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "fr_FR",
            "01:45\u{2009}\u{2013}\u{2009}03:00"
        ),  // spring forward 01:45 CST - 03:00 CDT
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "ja_JP",
            "1\u{6642}45\u{5206}\u{FF5E}3\u{6642}00\u{5206}"
        ),  // spring forward 01:45 CST - 03:00 CDT
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "ar_EG",
            "\u{0661}:\u{0664}\u{0665}\u{2013}\u{0663}:\u{0660}\u{0660}\u{00A0}\u{0635}"
        ),  // spring forward 01:45 CST - 03:00 CDT
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "es_UY",
            "1:45\u{2009}\u{2013}\u{2009}3:00\u{202F}a.\u{00A0}m."
        ),  // spring forward 01:45 CST - 03:00 CDT
        // spring forward 01:45 CST - 03:00 CDT
        ("America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "de_DE", "01:45\u{2013}03:00 Uhr"),
        (
            "America/Chicago", "2026-03-08T07:45:00Z", "2026-03-08T08:00:00Z", "zh-Hans-CN",
            "01:45\u{2009}\u{2013}\u{2009}03:00"
        ),  // spring forward 01:45 CST - 03:00 CDT
        (
            "Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "en_US",
            "1:45\u{2009}\u{2013}\u{2009}3:15\u{202F}AM"
        ),  // spring forward 01:45 CET - 03:15 CEST
        // spring forward 01:45 CET - 03:15 CEST
        ("Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "fr_FR", "01:45\u{2009}\u{2013}\u{2009}03:15"),
        (
            "Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "ja_JP",
            "1\u{6642}45\u{5206}\u{FF5E}3\u{6642}15\u{5206}"
        ),  // spring forward 01:45 CET - 03:15 CEST
        (
            "Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "ar_EG",
            "\u{0661}:\u{0664}\u{0665}\u{2013}\u{0663}:\u{0661}\u{0665}\u{00A0}\u{0635}"
        ),  // spring forward 01:45 CET - 03:15 CEST
        (
            "Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "es_UY",
            "1:45\u{2009}\u{2013}\u{2009}3:15\u{202F}a.\u{00A0}m."
        ),  // spring forward 01:45 CET - 03:15 CEST
        // spring forward 01:45 CET - 03:15 CEST
        ("Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "de_DE", "01:45\u{2013}03:15 Uhr"),
        (
            "Europe/Paris", "2026-03-29T00:45:00Z", "2026-03-29T01:15:00Z", "zh-Hans-CN",
            "01:45\u{2009}\u{2013}\u{2009}03:15"
        ),  // spring forward 01:45 CET - 03:15 CEST
        (
            "Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "en_US",
            "12:00\u{2009}\u{2013}\u{2009}12:15\u{202F}PM"
        ),  // 12:00-12:15
        // 12:00-12:15
        ("Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "fr_FR", "12:00\u{2009}\u{2013}\u{2009}12:15"),
        (
            "Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "ja_JP",
            "12\u{6642}00\u{5206}\u{FF5E}12\u{6642}15\u{5206}"
        ),  // 12:00-12:15
        (
            "Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "ar_EG",
            "\u{0661}\u{0662}:\u{0660}\u{0660}\u{2013}\u{0661}\u{0662}:\u{0661}\u{0665}\u{00A0}\u{0645}"
        ),  // 12:00-12:15
        (
            "Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "es_UY",
            "12:00\u{2009}\u{2013}\u{2009}12:15\u{202F}p.\u{00A0}m."
        ),  // 12:00-12:15
        // 12:00-12:15
        ("Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "de_DE", "12:00\u{2013}12:15 Uhr"),
        (
            "Asia/Tokyo", "2026-06-01T03:00:00Z", "2026-06-01T03:15:00Z", "zh-Hans-CN",
            "12:00\u{2009}\u{2013}\u{2009}12:15"
        ),  // 12:00-12:15
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "en_US",
            "12:30\u{2009}\u{2013}\u{2009}1:15\u{202F}PM"
        ),  // 12:30-13:15 crosses noon
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "fr_FR",
            "12:30\u{2009}\u{2013}\u{2009}13:15"
        ),  // 12:30-13:15 crosses noon
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "ja_JP",
            "12\u{6642}30\u{5206}\u{FF5E}13\u{6642}15\u{5206}"
        ),  // 12:30-13:15 crosses noon
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "ar_EG",
            "\u{0661}\u{0662}:\u{0663}\u{0660}\u{2013}\u{0661}:\u{0661}\u{0665}\u{00A0}\u{0645}"
        ),  // 12:30-13:15 crosses noon
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "es_UY",
            "12:30\u{2009}\u{2013}\u{2009}1:15\u{202F}p.\u{00A0}m."
        ),  // 12:30-13:15 crosses noon
        // 12:30-13:15 crosses noon
        ("America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "de_DE", "12:30\u{2013}13:15 Uhr"),
        (
            "America/Chicago", "2026-06-01T17:30:00Z", "2026-06-01T18:15:00Z", "zh-Hans-CN",
            "12:30\u{2009}\u{2013}\u{2009}13:15"
        ),  // 12:30-13:15 crosses noon
    ]

    static func instant(_ text: String) throws -> Date {
        try Date(text, strategy: .iso8601)
    }

    @Test("windows render as wall-clock times, across DST changes too", arguments: windows)
    func golden(timeZone: String, start: String, end: String, locale: String, expected: String) throws {
        let zone = try #require(TimeZone(identifier: timeZone))
        let label = formatter.label(
            start: try Self.instant(start), end: try Self.instant(end),
            timeZone: zone, locale: Locale(identifier: locale))
        #expect(label == expected, "\(timeZone), locale \(locale)")
    }

    @Test("the spring-forward window 01:45–03:00 in America/Chicago lasts 15 minutes (locale en_US)")
    func springForward() throws {
        let start = try Self.instant("2026-03-08T01:45:00-06:00")
        let end = try Self.instant("2026-03-08T03:00:00-05:00")
        #expect(end.timeIntervalSince(start) == 15 * 60)
        let chicago = try #require(TimeZone(identifier: "America/Chicago"))
        #expect(
            formatter.label(start: start, end: end, timeZone: chicago, locale: Locale(identifier: "en_US"))
                == "1:45\u{2009}\u{2013}\u{2009}3:00\u{202F}AM")
    }

    @Test("the repeated fall-back hour shows each end with its zone (America/Chicago, locale en_US)")
    func fallBackHour() throws {
        let chicago = try #require(TimeZone(identifier: "America/Chicago"))
        let english = Locale(identifier: "en_US")
        // 01:30 CDT to 01:30 CST is one hour, not an empty window.
        let hour = formatter.label(
            start: try Self.instant("2026-11-01T01:30:00-05:00"),
            end: try Self.instant("2026-11-01T01:30:00-06:00"),
            timeZone: chicago, locale: english)
        #expect(hour == "1:30\u{202F}AM CDT\u{2009}\u{2013}\u{2009}1:30\u{202F}AM CST")
        // 01:45 CDT to 01:15 CST is 30 minutes, not a window running backwards.
        let half = formatter.label(
            start: try Self.instant("2026-11-01T01:45:00-05:00"),
            end: try Self.instant("2026-11-01T01:15:00-06:00"),
            timeZone: chicago, locale: english)
        #expect(half == "1:45\u{202F}AM CDT\u{2009}\u{2013}\u{2009}1:15\u{202F}AM CST")
        // 01:00 CDT to 01:30 CST is 90 minutes, not 30.
        let longer = formatter.label(
            start: try Self.instant("2026-11-01T01:00:00-05:00"),
            end: try Self.instant("2026-11-01T01:30:00-06:00"),
            timeZone: chicago, locale: english)
        #expect(longer == "1:00\u{202F}AM CDT\u{2009}\u{2013}\u{2009}1:30\u{202F}AM CST")
    }

    @Test("the repeated fall-back hour in Europe/Paris shows each end with its zone (locale fr_FR)")
    func fallBackParis() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let label = formatter.label(
            start: try Self.instant("2026-10-25T02:45:00+02:00"),
            end: try Self.instant("2026-10-25T02:15:00+01:00"),
            timeZone: paris, locale: Locale(identifier: "fr_FR"))
        #expect(label == "02:45 UTC+2\u{2009}\u{2013}\u{2009}02:15 UTC+1")
    }

    @Test("the same instants read in another café's zone (Asia/Tokyo vs America/Chicago, locale en_US)")
    func zoneDecides() throws {
        let start = try Self.instant("2026-06-01T03:00:00Z")
        let end = try Self.instant("2026-06-01T03:15:00Z")
        let english = Locale(identifier: "en_US")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let chicago = try #require(TimeZone(identifier: "America/Chicago"))
        #expect(
            formatter.label(start: start, end: end, timeZone: tokyo, locale: english)
                == "12:00\u{2009}\u{2013}\u{2009}12:15\u{202F}PM")
        #expect(
            formatter.label(start: start, end: end, timeZone: chicago, locale: english)
                == "10:00\u{2009}\u{2013}\u{2009}10:15\u{202F}PM")
    }

    @Test("a window given backwards is shown from its earlier end (Europe/Paris, locale fr_FR)")
    func backwards() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let label = formatter.label(
            start: try Self.instant("2026-06-01T10:15:00Z"),
            end: try Self.instant("2026-06-01T10:00:00Z"),
            timeZone: paris, locale: Locale(identifier: "fr_FR"))
        #expect(label == "12:00\u{2009}\u{2013}\u{2009}12:15")
    }

    @Test("the style cache never grows past its capacity")
    func boundedCache() throws {
        let small = PickupWindowFormatter(cacheCapacity: 2)
        let start = try Self.instant("2026-06-01T10:00:00Z")
        for zone in ["Asia/Tokyo", "Europe/Paris", "America/Chicago", "Asia/Kuwait"] {
            _ = small.label(
                start: start, end: start.addingTimeInterval(900),
                timeZone: try #require(TimeZone(identifier: zone)), locale: Locale(identifier: "en_US"))
            #expect(small.cachedStyleCount <= 2)
        }
    }

    @Test("labels are remembered per (locale, zone, window) and the label cache stays bounded too")
    func labelCache() throws {
        let small = PickupWindowFormatter(cacheCapacity: 8, labelCapacity: 3)
        let start = try Self.instant("2026-06-01T10:00:00Z")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let english = Locale(identifier: "en_US")
        let first = small.label(start: start, end: start.addingTimeInterval(900), timeZone: tokyo, locale: english)
        #expect(
            small.label(start: start, end: start.addingTimeInterval(900), timeZone: tokyo, locale: english) == first)
        #expect(small.cachedLabelCount == 1)
        // A different locale, zone or end is a different label, never the remembered one.
        #expect(
            small.label(
                start: start, end: start.addingTimeInterval(900), timeZone: tokyo,
                locale: Locale(identifier: "fr_FR")) == "19:00\u{2009}\u{2013}\u{2009}19:15")
        #expect(
            small.label(start: start, end: start.addingTimeInterval(1800), timeZone: tokyo, locale: english)
                == "7:00\u{2009}\u{2013}\u{2009}7:30\u{202F}PM")
        for minutes in 1...10 {
            _ = small.label(
                start: start, end: start.addingTimeInterval(Double(minutes) * 60), timeZone: tokyo,
                locale: english)
            #expect(small.cachedLabelCount <= 3)
        }
        #expect(
            small.label(start: start, end: start.addingTimeInterval(900), timeZone: tokyo, locale: english) == first)
    }
}
