import Foundation

// MARK: - TraceScenario

/// Ready-made floor plans for tests, `beacons simulate` and the benchmark: cafés whose beacons stand
/// `spacing` metres apart on a line, and a device path past them.
public struct TraceScenario: Sendable {
    public var generator: TraceGenerator
    public var registry: BeaconRegistry
    /// Seconds from the start at which the device passes the midpoint between the first two cafés.
    public var midpointTime: Double

    /// The proximity UUID the scenarios use.
    public static let companyUUID = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? UUID()

    /// Beacons of `cafeCount` cafés (`cafe-a`, `cafe-b`, …), one every `spacing` metres along y = 0.
    public static func placedBeacons(cafeCount: Int, spacing: Double, measuredPower: Int8 = -59)
        -> (beacons: [TraceGenerator.PlacedBeacon], registry: BeaconRegistry) {
        var placed: [TraceGenerator.PlacedBeacon] = []
        var registered: [RegisteredBeacon] = []
        for index in 0..<max(1, cafeCount) {
            let identity = BeaconIdentity(uuid: companyUUID, major: UInt16(index + 1), minor: 1)
            let letter = String(UnicodeScalar(UInt8(97 + index % 26)))
            placed.append(TraceGenerator.PlacedBeacon(
                beacon: IBeacon(identity: identity, measuredPower: measuredPower),
                address: BluetoothAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(index + 1)),
                position: TraceGenerator.Point(x: Double(index) * spacing, y: 0)))
            registered.append(RegisteredBeacon(identity: identity, cafeID: "cafe-\(letter)",
                                               label: "Café \(letter.uppercased()) counter",
                                               measuredPower: Int(measuredPower)))
        }
        return (placed, BeaconRegistry(registered))
    }

    /// A device 1 m off the line walking from café A's beacon to café B's at `speed`, then lingering.
    public static func walk(seed: UInt64, spacing: Double = 20, speed: Double = 1.2, linger: Double = 20) -> TraceScenario {
        let (beacons, registry) = placedBeacons(cafeCount: 2, spacing: spacing)
        let path = TraceGenerator.Path.walk(from: .init(x: 0, y: 1), to: .init(x: spacing, y: 1),
                                            speed: speed, linger: linger)
        return TraceScenario(generator: TraceGenerator(beacons: beacons, path: path, seed: seed),
                             registry: registry, midpointTime: spacing / 2 / speed)
    }

    /// A device standing 1 m off the line, halfway between café A's and café B's beacons.
    public static func standAtMidpoint(seed: UInt64, spacing: Double = 20, duration: Double = 600) -> TraceScenario {
        let (beacons, registry) = placedBeacons(cafeCount: 2, spacing: spacing)
        let path = TraceGenerator.Path.stand(at: .init(x: spacing / 2, y: 1), duration: duration)
        return TraceScenario(generator: TraceGenerator(beacons: beacons, path: path, seed: seed),
                             registry: registry, midpointTime: 0)
    }
}
