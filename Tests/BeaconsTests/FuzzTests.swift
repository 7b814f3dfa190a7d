import Foundation
import Testing
@testable import Beacons

@Suite("parsers survive arbitrary bytes")
struct FuzzTests {
    /// `BEACONS_FUZZ_SEED` repeats a run; otherwise a new seed each run, printed.
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["BEACONS_FUZZ_SEED"], let value = UInt64(text) { return value }
        return UInt64.random(in: 0...UInt64.max)
    }()
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
                result += (0..<Int.random(in: 1...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 3 where result.count > 2:
                result.remove(at: Int.random(in: 0..<result.count, using: &random))
            default:
                result = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
        }
        return result
    }

    @Test("mutated and random events, captures and H4 streams never crash the parsers, and the two parsers agree on malformed events")
    func fuzz() throws {
        print("FuzzTests seed: \(Self.seed) (set BEACONS_FUZZ_SEED to repeat)")
        var random = SeededRandom(seed: Self.seed)
        let scenario = TraceScenario.walk(seed: 7, spacing: 4, speed: 4, linger: 0)
        var generator = scenario.generator
        generator.reportsPerEvent = 3
        let legacyCapture = generator.capture(datalink: .hciUART)
        generator.extendedReports = true
        let extendedCapture = generator.capture(datalink: .linuxMonitor)
        let events = try BTSnoopReader(bytes: legacyCapture).packets().packets.map(\.payload)
            + BTSnoopReader(bytes: extendedCapture).packets().packets.map(\.payload)
        try #require(!events.isEmpty)
        var parsed = 0
        for iteration in 0..<Self.iterations {
            let event = Self.mutate(events[iteration % events.count], random: &random)
            parsed += IBeaconSighting.sightings(inEvent: event, time: Date()).count
            for cut in [false, true] {
                // One rule for both parsers: what the report parser calls malformed, HCIEvent refuses.
                let summary = event.withUnsafeBytes { AdvertisingReportParser.forEachReport(inEvent: $0, cutByCapture: cut) { _ in } }
                let decoded = HCIEvent(bytes: event, cutByCapture: cut)
                if summary.malformedEvent { #expect(decoded == nil, "\(event)") }
                if summary.reportCount > 0 { #expect(decoded != nil, "\(event)") }
            }
            _ = HCICommand(bytes: event)
            var deframer = H4Deframer()
            deframer.append([0x04] + event)
            while let packet = try? deframer.nextPacket() { _ = packet }
            if iteration % 20 == 0 {
                let source = iteration % 40 == 0 ? legacyCapture : extendedCapture
                let capture = Self.mutate(Array(source.prefix(400)), random: &random)
                if let reader = try? BTSnoopReader(bytes: capture) {
                    _ = reader.sightings()
                }
            }
        }
        #expect(parsed > 0)
    }
}
