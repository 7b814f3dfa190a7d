import CanteenRandom
import Foundation

// MARK: - TraceScenario

/// Ready-made floor plans for tests, `beacons simulate` and the benchmark: cafés whose beacons stand
/// `spacing` metres apart on a line, and a device path past them.
public struct TraceScenario: Sendable {
    public var generator: TraceGenerator
    public var registry: BeaconRegistry
    /// Seconds from the start at which the device passes the midpoint between the first two cafés
    /// (0 for a device standing still).
    public var midpointTime: Double
    /// Seconds from the start at which a walking device reaches café B's beacon (0 when standing).
    public var arrivalTime: Double

    /// The proximity UUID the scenarios use.
    public static let companyUUID = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? UUID()

    /// Beacons of `cafeCount` cafés (`cafe-a`, `cafe-b`, …), one every `spacing` metres along y = 0.
    /// With a `powerSpread`, each beacon's measured power is drawn (from `seed`) within
    /// `measuredPower` ± the spread, and registered as such.
    public static func placedBeacons(
        cafeCount: Int, spacing: Double, measuredPower: Int8 = -59,
        powerSpread: Double = 0, seed: UInt64 = 0
    )
        -> (beacons: [TraceGenerator.PlacedBeacon], registry: BeaconRegistry)
    {
        var placed: [TraceGenerator.PlacedBeacon] = []
        var registered: [RegisteredBeacon] = []
        var random = SeededRandom(seed: seed ^ 0x5EED_0F_B0A7)
        for index in 0..<max(1, cafeCount) {
            let identity = BeaconIdentity(uuid: companyUUID, major: UInt16(index + 1), minor: 1)
            let letter = String(UnicodeScalar(UInt8(97 + index % 26)))
            let offset = powerSpread > 0 ? Double.random(in: -powerSpread...powerSpread, using: &random).rounded() : 0
            let power = Int8(clamping: Int(measuredPower) + Int(offset))
            placed.append(
                TraceGenerator.PlacedBeacon(
                    beacon: IBeacon(identity: identity, measuredPower: power),
                    address: BluetoothAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(index + 1)),
                    position: TraceGenerator.Point(x: Double(index) * spacing, y: 0)))
            registered.append(
                RegisteredBeacon(
                    identity: identity, cafeID: "cafe-\(letter)",
                    label: "Café \(letter.uppercased()) counter",
                    measuredPower: Int(power)))
        }
        return (placed, BeaconRegistry(registered))
    }

    /// A device 1 m off the line walking from café A's beacon to café B's at `speed`, then lingering.
    public static func walk(
        seed: UInt64, spacing: Double = 20, speed: Double = 1.2, linger: Double = 20,
        radio: RadioModel = .gaussian
    ) -> TraceScenario {
        let path = TraceGenerator.Path.walk(
            from: .init(x: 0, y: 1), to: .init(x: spacing, y: 1),
            speed: speed, linger: linger)
        return make(
            seed: seed, spacing: spacing, path: path, radio: radio,
            midpointTime: spacing / 2 / speed, arrivalTime: spacing / speed)
    }

    /// A device standing 1 m off the line, halfway between café A's and café B's beacons.
    public static func standAtMidpoint(
        seed: UInt64, spacing: Double = 20, duration: Double = 600,
        radio: RadioModel = .gaussian
    ) -> TraceScenario {
        stand(seed: seed, at: spacing / 2, spacing: spacing, duration: duration, radio: radio)
    }

    /// A device standing 1 m off the line, `along` metres from café A's beacon towards café B's.
    public static func stand(
        seed: UInt64, at along: Double, spacing: Double = 20, duration: Double = 600,
        radio: RadioModel = .gaussian
    ) -> TraceScenario {
        let path = TraceGenerator.Path.stand(at: .init(x: along, y: 1), duration: duration)
        return make(seed: seed, spacing: spacing, path: path, radio: radio, midpointTime: 0, arrivalTime: 0)
    }

    private static func make(
        seed: UInt64, spacing: Double, path: TraceGenerator.Path, radio: RadioModel,
        midpointTime: Double, arrivalTime: Double
    ) -> TraceScenario {
        let (beacons, registry) = placedBeacons(
            cafeCount: 2, spacing: spacing, powerSpread: radio.powerSpread, seed: seed)
        var generator = TraceGenerator(beacons: beacons, path: path, seed: seed)
        generator.radio = radio
        return TraceScenario(
            generator: generator, registry: registry, midpointTime: midpointTime, arrivalTime: arrivalTime)
    }
}
