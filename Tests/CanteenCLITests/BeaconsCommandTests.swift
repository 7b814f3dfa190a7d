import Beacons
import Foundation
import Testing

@Suite("canteen beacons, run as a user would")
struct BeaconsCommandTests {
    static let identity = BeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 258, minor: 772)

    /// A temporary folder removed after `body`.
    static func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("canteen-beacons-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    @Test("replay prints each sighting as one JSON line with upper-case UUID, microseconds and a null RSSI when not available")
    func replayJSONLines() throws {
        try Self.withFolder { folder in
            let time = Date(timeIntervalSince1970: 1_790_000_000.000042)
            let sightings = [-61, nil].map { rssi in
                IBeaconSighting(time: time, address: BluetoothAddress(rawValue: 0xAABB_CCDD_EEFF), identity: Self.identity,
                                txPower: -59, rssi: rssi.map { Int8($0) })
            }
            var writer = BTSnoopWriter(datalink: .linuxMonitor)
            for sighting in sightings {
                writer.append(type: .event, direction: .received, date: time,
                              payload: TraceGenerator.advertisingReportEvent([sighting]))
            }
            let file = folder.appendingPathComponent("two.btsnoop")
            try Data(writer.bytes).write(to: file)
            let result = try CanteenProcess.run(["beacons", "replay", file.path])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.split(separator: "\n") == [
                #"{"time": "2026-09-21T14:13:20.000042Z", "address": "AA:BB:CC:DD:EE:FF", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 258, "minor": 772, "txPower": -59, "rssi": -61}"#,
                #"{"time": "2026-09-21T14:13:20.000042Z", "address": "AA:BB:CC:DD:EE:FF", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 258, "minor": 772, "txPower": -59, "rssi": null}"#,
            ])
        }
    }
}
