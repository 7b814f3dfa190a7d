import CanteenRandom
import Foundation
import Testing

@testable import Beacons

@Suite("parsers survive arbitrary bytes and give what a reference decoder gives (fixed seed)")
struct FuzzTests {
    /// A fixed seed: every run sees the same 20,000 inputs (issue 16; was a new seed each run).
    static let seed: UInt64 = 0x4243_4E31_3630_3436
    static let iterations = 20_000

    static func mutate(_ bytes: [UInt8], random: inout SeededRandom) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !result.isEmpty:
                result[Int.random(in: 0..<result.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1 where !result.isEmpty:
                result.removeLast(Int.random(in: 1...result.count, using: &random))
            case 2:
                result += (0..<Int.random(in: 1...16, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            case 3 where result.count > 2:
                result.remove(at: Int.random(in: 0..<result.count, using: &random))
            default:
                result = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            }
        }
        return result
    }

    /// What an event must give, decoded by the letter of the Core specification (Vol 4 Part E
    /// 7.7.65.2 and 7.7.65.13) independently of the parser: each well-formed report's iBeacon,
    /// in order; reading stops at the first report the event cuts short; an event whose length
    /// byte disagrees with its bytes gives none.
    static func expectedSightings(_ event: [UInt8]) -> [(
        address: UInt64, uuid: [UInt8], major: UInt16, minor: UInt16,
        power: Int8, rssi: Int8?
    )] {
        // The length byte must match the bytes (an event that disagrees is malformed and yields
        // nothing; only a btsnoop record that says it was cut may hold fewer, not tested here).
        guard event.count >= 4, event[0] == 0x3E, event.count == 2 + Int(event[1]) else { return [] }
        let bytes = event
        guard bytes.count >= 4, bytes[2] == 0x02 || bytes[2] == 0x0D else { return [] }
        let extended = bytes[2] == 0x0D
        var offset = 4
        var found: [(address: UInt64, uuid: [UInt8], major: UInt16, minor: UInt16, power: Int8, rssi: Int8?)] = []
        for _ in 0..<Int(bytes[3]) {
            let fixed = extended ? 24 : 9  // bytes before the data
            guard offset + fixed <= bytes.count else { break }
            let addressStart = offset + (extended ? 3 : 2)
            let address = (0..<6).reduce(UInt64(0)) { $0 | UInt64(bytes[addressStart + $1]) << (8 * UInt64($1)) }
            let length = Int(bytes[offset + fixed - 1])
            let dataStart = offset + fixed
            guard dataStart + length + (extended ? 0 : 1) <= bytes.count else { break }
            let data = Array(bytes[dataStart..<(dataStart + length)])
            let rawRSSI = extended ? bytes[offset + 13] : bytes[dataStart + length]
            offset = dataStart + length + (extended ? 0 : 1)
            // AD structures: a zero length ends the significant part; one running past the end spoils the report.
            var position = 0
            var wellFormed = true
            var structures: [(UInt8, [UInt8])] = []
            while position < data.count {
                let size = Int(data[position])
                if size == 0 { break }
                guard position + 1 + size <= data.count else { wellFormed = false; break }
                structures.append((data[position + 1], Array(data[(position + 2)..<(position + 1 + size)])))
                position += 1 + size
            }
            guard wellFormed else { continue }
            // The first manufacturer-specific structure that is Apple's iBeacon frame.
            guard
                let beacon = structures.first(where: {
                    $0.0 == 0xFF && $0.1.count == 25 && $0.1.starts(with: [0x4C, 0x00, 0x02, 0x15])
                })?.1
            else { continue }
            found.append(
                (
                    address, Array(beacon[4..<20]), UInt16(beacon[20]) << 8 | UInt16(beacon[21]),
                    UInt16(beacon[22]) << 8 | UInt16(beacon[23]), Int8(bitPattern: beacon[24]),
                    rawRSSI == 127 ? nil : Int8(bitPattern: rawRSSI)
                ))
        }
        return found
    }

    @Test(
        "20,000 mutated events and captures: the sightings are exactly what the reference decoder reads, the two parsers agree on malformed events, and nothing crashes"
    )
    func fuzz() throws {
        var random = SeededRandom(seed: Self.seed)
        let scenario = TraceScenario.walk(seed: 7, spacing: 4, speed: 4, linger: 0)
        var generator = scenario.generator
        generator.reportsPerEvent = 3
        let legacyCapture = generator.capture(datalink: .hciUART)
        generator.extendedReports = true
        let extendedCapture = generator.capture(datalink: .linuxMonitor)
        let events =
            try BTSnoopReader(bytes: legacyCapture).packets().packets.map(\.payload)
            + BTSnoopReader(bytes: extendedCapture).packets().packets.map(\.payload)
        try #require(!events.isEmpty)
        var parsed = 0
        var unchanged = 0
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        for iteration in 0..<Self.iterations {
            let original = events[iteration % events.count]
            let event = Self.mutate(original, random: &random)
            let sightings = IBeaconSighting.sightings(inEvent: event, time: time)
            let expected = Self.expectedSightings(event)
            parsed += sightings.count
            #expect(sightings.count == expected.count, "\(event)")
            for (sighting, want) in zip(sightings, expected) {
                let uuid = withUnsafeBytes(of: sighting.identity.uuid.uuid) { Array($0) }
                #expect(
                    sighting.address.rawValue == want.address && uuid == want.uuid
                        && sighting.identity.major == want.major
                        && sighting.identity.minor == want.minor && sighting.txPower == want.power
                        && sighting.rssi == want.rssi,
                    "\(event)")
                #expect(sighting.time == time)
            }
            if event == original { unchanged += 1 }
            let (reports, summary) = AdvertisingReport.reports(inEvent: event)
            #expect(reports.count == summary.reportCount)
            if let decoded = HCIEvent(bytes: event) {
                #expect(HCIEvent(bytes: decoded.bytes) == decoded)
                #expect(event.count == 2 + Int(event[1]))
            } else {
                #expect(event.count < 2 || event.count != 2 + Int(event[1]) || [0x0E, 0x0F, 0x3E].contains(event[0]))
            }
            for cut in [false, true] {
                // One rule for both parsers: what the report parser calls malformed, HCIEvent refuses.
                let summary = event.withUnsafeBytes {
                    AdvertisingReportParser.forEachReport(inEvent: $0, cutByCapture: cut) { _ in }
                }
                let decoded = HCIEvent(bytes: event, cutByCapture: cut)
                if summary.malformedEvent { #expect(decoded == nil, "\(event)") }
                if summary.reportCount > 0 { #expect(decoded != nil, "\(event)") }
            }
            _ = HCICommand(bytes: event)
            var deframer = H4Deframer()
            deframer.append([0x04] + event)
            var framed: [[UInt8]] = []
            while let packet = try? deframer.nextPacket() { framed.append(packet) }
            // An H4 event packet is its indicator, code, length and that many parameters.
            if event.count >= 2, event.count - 2 >= Int(event[1]) {
                #expect(framed.first == [0x04] + event.prefix(2 + Int(event[1])))
            } else {
                #expect(framed.isEmpty)
            }
            if iteration % 20 == 0 {
                let source = iteration % 40 == 0 ? legacyCapture : extendedCapture
                let capture = Self.mutate(Array(source.prefix(400)), random: &random)
                if let reader = try? BTSnoopReader(bytes: capture) {
                    let (packets, packetSummary) = reader.packets()
                    #expect(packets.count <= packetSummary.recordCount)
                    #expect(reader.sightings().summary == packetSummary)
                }
            }
        }
        // The seed is fixed, so these counts are too: a change in them is a change in the parsers.
        #expect(parsed > 1000, "sightings found: \(parsed)")
        #expect(unchanged < Self.iterations / 10)
    }
}
