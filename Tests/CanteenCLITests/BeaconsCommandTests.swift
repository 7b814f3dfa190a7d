import Beacons
import Foundation
import Testing

@Suite("canteen beacons, run as a user would")
struct BeaconsCommandTests {
    static let identity = BeaconIdentity(
        uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 258, minor: 772)

    /// A temporary folder removed after `body`.
    static func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-beacons-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    @Test(
        "replay prints each sighting as one JSON line with upper-case UUID, microseconds and a null RSSI when not available"
    )
    func replayJSONLines() throws {
        try Self.withFolder { folder in
            let time = Date(timeIntervalSince1970: 1_790_000_000.000042)
            let sightings = [-61, nil].map { rssi in
                IBeaconSighting(
                    time: time, address: BluetoothAddress(rawValue: 0xAABB_CCDD_EEFF), identity: Self.identity,
                    txPower: -59, rssi: rssi.map { Int8($0) })
            }
            var writer = BTSnoopWriter(datalink: .linuxMonitor)
            for sighting in sightings {
                writer.append(
                    type: .event, direction: .received, date: time,
                    payload: TraceGenerator.advertisingReportEvent([sighting]))
            }
            let file = folder.appendingPathComponent("two.btsnoop")
            try Data(writer.bytes).write(to: file)
            let result = try CanteenProcess.run(["beacons", "replay", file.path])
            #expect(result.status == 0, "\(result.errors)")
            #expect(
                result.output.split(separator: "\n") == [
                    #"{"time": "2026-09-21T14:13:20.000042Z", "address": "AA:BB:CC:DD:EE:FF", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 258, "minor": 772, "txPower": -59, "rssi": -61}"#,
                    #"{"time": "2026-09-21T14:13:20.000042Z", "address": "AA:BB:CC:DD:EE:FF", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 258, "minor": 772, "txPower": -59, "rssi": null}"#,
                ])
        }
    }

    @Test("simulate writes the same capture for the same seed, with a registry holding each beacon's measured power")
    func simulate() throws {
        try Self.withFolder { folder in
            let capture = folder.appendingPathComponent("walk.btsnoop").path
            let again = folder.appendingPathComponent("again.btsnoop").path
            let beacons = folder.appendingPathComponent("beacons.json").path
            let first = try CanteenProcess.run([
                "beacons", "simulate", "-o", capture, "--seed", "7", "--beacons-output", beacons,
            ])
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.errors.contains("path-loss exponents") && first.errors.contains("café B reached at 16.7 s"))
            _ = try CanteenProcess.run(["beacons", "simulate", "-o", again, "--seed", "7"])
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: capture)) == Data(contentsOf: URL(fileURLWithPath: again)))
            let registry = try BeaconRegistry(contentsOf: URL(fileURLWithPath: beacons))
            let sightings = try BTSnoopReader(contentsOf: URL(fileURLWithPath: capture)).sightings().sightings
            #expect(!sightings.isEmpty)
            for sighting in sightings {
                #expect(registry[sighting.identity]?.measuredPower == Int(sighting.txPower))
            }
            // About 25 % of 2 × 36.7 s of advertisements every 105 ms are lost.
            #expect(sightings.count > 450 && sightings.count < 620, "\(sightings.count) sightings")

            let plain = try CanteenProcess.run([
                "beacons", "simulate", "-o", again, "--seed", "7", "--radio", "gaussian",
                "--scenario", "stand", "--at", "6", "--duration", "10",
            ])
            #expect(plain.status == 0, "\(plain.errors)")
            let plainSightings = try BTSnoopReader(contentsOf: URL(fileURLWithPath: again)).sightings().sightings
            #expect(plainSightings.count > 180)  // nothing lost
            #expect(Set(plainSightings.map(\.txPower)) == [-59])
        }
    }

    @Test(
        "simulate refuses radio values that make no sense, naming the flag",
        arguments: [
            ["--packet-loss", "1.2"], ["--packet-loss", "0.3-0.2"], ["--path-loss-exponent", "0"],
            ["--shadowing", "-1"],
            ["--fading", "rician"], ["--body-duration", "two"],
        ])
    func simulateRefuses(flags: [String]) throws {
        try Self.withFolder { folder in
            let result = try CanteenProcess.run(
                ["beacons", "simulate", "-o", folder.appendingPathComponent("x").path] + flags)
            #expect(result.status == 64, "\(result.errors)")
            #expect(result.errors.contains("--"), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x").path))
        }
    }

    @Test("range --plot draws each beacon's packets and smoothed level and marks every café decision")
    func plot() throws {
        try Self.withFolder { folder in
            let capture = folder.appendingPathComponent("walk.btsnoop").path
            let beacons = folder.appendingPathComponent("beacons.json").path
            let svg = folder.appendingPathComponent("walk.svg").path
            _ = try CanteenProcess.run([
                "beacons", "simulate", "-o", capture, "--seed", "2", "--beacons-output", beacons,
            ])
            let result = try CanteenProcess.run(["beacons", "range", capture, "--beacons", beacons, "--plot", svg])
            #expect(result.status == 0, "\(result.errors)")
            let decisions = result.output.split(separator: "\n").filter { $0.contains("nearest café  ") }
            #expect(decisions.count == 2, "\(result.output)")
            #expect(decisions.first?.hasSuffix("none -> cafe-a (first choice)") == true, "\(result.output)")
            let drawing = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(drawing.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            #expect(drawing.hasSuffix("</svg>\n"))
            #expect(drawing.components(separatedBy: "<polyline").count - 1 == 2)  // one smoothed line per beacon
            #expect(drawing.components(separatedBy: "<circle").count - 1 > 400)  // the packets
            #expect(drawing.contains("→ cafe-a at") && drawing.contains("→ cafe-b at"))
            #expect(drawing.contains("(first choice)"))
            #expect(drawing.components(separatedBy: "stroke-dasharray").count - 1 == decisions.count)
        }
    }
}
