import CanteenJSON
import Foundation
import Testing

@Suite struct JSONWriterTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    func written(_ value: some JSONWritable) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }
    func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try Self.encoder.encode(value), as: UTF8.self)
    }

    @Test("strings escape exactly as JSONEncoder: every ASCII byte, controls, quotes, non-ASCII")
    func strings() throws {
        var everyASCII = ""
        for value in 0..<0x80 { everyASCII.unicodeScalars.append(Unicode.Scalar(value)!) }
        let samples = [
            everyASCII, "", "plain", "caf\u{E9} \u{2028}\u{2029} \u{1F600} /slash/ \u{7F}\u{FEFF}",
            "\"quoted\" \\ back", "tab\there\nnew\u{0}nul", "日本語のメニュー", "مرحبا",
        ]
        for sample in samples {
            #expect(written([sample]) == (try encoded([sample])))
        }
    }

    @Test("integers, booleans, null and dates as JSONEncoder writes them")
    func scalars() throws {
        #expect(written([Int64.min, Int64.max, 0, -1]) == (try encoded([Int64.min, Int64.max, 0, -1])))
        #expect(written([1, 99]) == (try encoded([1, 99])))
        #expect(written([true, false]) == (try encoded([true, false])))
        let dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_000_000.999),
            Date(timeIntervalSince1970: -86_400.5), Date(timeIntervalSince1970: 4_102_444_799),
        ]
        #expect(written(dates) == (try encoded(dates)))
    }

    /// A nested object with an optional member (a customer as an order names one).
    struct Person: Encodable, JSONWritable {
        var name: String
        var userId: String?

        func write(to json: inout JSONWriter) {
            json.object { object in
                object.field("name", name)
                object.field("userId", userId)
            }
        }
    }

    struct Sample: Encodable, JSONWritable {
        var amount: Int64
        var customer: Person
        var lines: [String]
        var note: String?
        var when: Date

        func write(to json: inout JSONWriter) {
            json.object { object in
                object.field("amount", amount)
                object.field("customer", customer)
                object.field("lines", lines)
                object.field("note", note)
                object.field("when", when)
            }
        }
    }

    @Test("objects: members in order, nil optionals left out, nesting and empty arrays")
    func objects() throws {
        let samples = [
            Sample(
                amount: 1250, customer: Person(name: "Ana \"A\"", userId: "u1"), lines: ["a", "b"], note: "no ice",
                when: Date(timeIntervalSince1970: 1_795_000_000)),
            Sample(
                amount: -3, customer: Person(name: "Bo", userId: nil), lines: [], note: nil,
                when: Date(timeIntervalSince1970: 1)),
        ]
        for sample in samples {
            #expect(written(sample) == (try encoded(sample)))
        }
        #expect(
            written([samples[1]])
                == #"[{"amount":-3,"customer":{"name":"Bo"},"lines":[],"when":"1970-01-01T00:00:01Z"}]"#)
    }

    @Test("RFC 3339 instants match Date.ISO8601FormatStyle in every kind of zone")
    func rfc3339() throws {
        let zones = [
            "UTC", "America/Chicago", "Europe/Paris", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham",
            "America/St_Johns", "Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago",
        ]
        for zoneID in zones {
            let zone = try #require(TimeZone(identifier: zoneID))
            let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: zone)
            for step in 0..<300 {  // 1906 to 2096 in uneven steps, fractions of a second included
                let date = Date(timeIntervalSince1970: -2_000_000_000 + Double(step) * 20_000_017.37)
                #expect(
                    RFC3339.string(date, timeZone: zone) == style.format(date),
                    "\(zoneID) \(date.timeIntervalSince1970)")
            }
        }
        let utc = Date.ISO8601FormatStyle(timeZone: .gmt)
        for seconds in [0.0, 0.999, -0.5, 1_795_000_000.25, 253_402_300_799] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.utcSeconds(date) == utc.format(date))
        }
    }

    @Test("UTC with microseconds and GRDB's stored milliseconds match Foundation's rendering of the same instant")
    func utcFractions() throws {
        let utc = Date.ISO8601FormatStyle(timeZone: .gmt)
        // 1906 to 2096 in uneven steps (before 1970 included), plus the edges of a second and of the range.
        let samples =
            (0..<300).map { -2_000_000_000_000_000 + Int64($0) * 20_000_017_370_123 }
            + [0, 1, 999, 999_999, -1, -999, -1_000_000, -86_400_250_000, 253_402_300_799_999_999]
        for micros in samples {
            let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
            let fraction = micros - seconds * 1_000_000
            let whole = utc.format(Date(timeIntervalSince1970: TimeInterval(seconds))).dropLast()  // no "Z"
            let sixDigits = String(fraction + 1_000_000).dropFirst()
            #expect(RFC3339.utcMicroseconds(unixMicroseconds: micros) == "\(whole).\(sixDigits)Z", "\(micros)")
            let stored = whole.replacingOccurrences(of: "T", with: " ") + "." + sixDigits.prefix(3)
            #expect(RFC3339.utcStoredMilliseconds(unixMicroseconds: micros) == stored, "\(micros)")
        }
        #expect(RFC3339.utcStoredMilliseconds(unixMicroseconds: 253_402_300_800_000_000) == nil)  // year 10000
        #expect(
            RFC3339.utcMicroseconds(Date(timeIntervalSince1970: 1_795_000_000.1234567)) == "2026-11-18T11:06:40.123457Z"
        )
    }

    @Test("UTC instants with microseconds, before and after 1970 and on a leap day")
    func rfc3339Microseconds() {
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: -1) == "1969-12-31T23:59:59.999999Z")
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: 951_782_400_000_001) == "2000-02-29T00:00:00.000001Z")
        #expect(
            RFC3339.utcMicroseconds(Date(timeIntervalSince1970: 1_790_000_000.123456)) == "2026-09-21T14:13:20.123456Z")
    }
}
