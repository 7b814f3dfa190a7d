import Foundation
import Testing

@testable import Beacons

/// Captures taken in a VM against BlueZ 5.66's controller emulator (`btvirt -l3`), see
/// docs/bluetooth.md: `btmon -w` (datalink 2001) and the scanner's own `--record` (datalink 1002).
@Suite("captures from BlueZ's controller emulator")
struct EmulatorCaptureTests {
    static func capture(_ name: String) throws -> BTSnoopReader {
        let url = try #require(Bundle.module.url(forResource: "Resources/\(name)", withExtension: "btsnoop"))
        return try BTSnoopReader(contentsOf: url)
    }

    static let identity = BeaconIdentity(uuid: Fixtures.uuid, major: 7, minor: 42)

    @Test("btmon's capture of an injected advertising report gives the iBeacon with RSSI -58")
    func btmonCapture() throws {
        let reader = try Self.capture("btmon-emulator")
        #expect(reader.datalink == .linuxMonitor)
        let (sightings, summary) = reader.sightings()
        #expect(summary.warning == nil)
        #expect(sightings.count == 1)
        let sighting = try #require(sightings.first)
        #expect(sighting.identity == Self.identity)
        #expect(sighting.address.description == "11:22:33:44:55:66")
        #expect(sighting.rssi == -58 && sighting.txPower == -59)
    }

    @Test("the scanner's own recording holds its handshake, both sightings and the final disable")
    func scannerRecording() throws {
        let reader = try Self.capture("scanner-emulator")
        #expect(reader.datalink == .hciUART)
        let sightings = reader.sightings().sightings
        #expect(sightings.map(\.rssi) == [nil, -58])
        #expect(sightings.allSatisfy { $0.identity == Self.identity })
        let commands = reader.packets().packets.filter { $0.type == .command }.compactMap {
            HCICommand(bytes: $0.payload)
        }
        #expect(commands.map(\.opcode) == [0x1002, 0x2041, 0x2042, 0x2042])
        #expect(commands.map { $0.parameters.first } == [nil, 0x00, 0x01, 0x00])
    }
}
