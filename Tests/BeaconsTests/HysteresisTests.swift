import Foundation
import Testing

@testable import Beacons

@Suite("nearest café with hysteresis, on generated walks")
struct HysteresisTests {
    static func changes(_ scenario: TraceScenario) throws -> [(from: String?, to: String?, at: Double)] {
        let capture = scenario.generator.capture(datalink: .linuxMonitor)
        let sightings = try BTSnoopReader(bytes: capture).sightings().sightings
        try #require(!sightings.isEmpty)
        var engine = RangingEngine(registry: scenario.registry)
        var changes: [(from: String?, to: String?, at: Double)] = []
        for sighting in sightings {
            engine.process(sighting) { event in
                if case let .nearestCafeChanged(from, to, at) = event {
                    changes.append((from, to, at.timeIntervalSince(scenario.generator.start)))
                }
            }
        }
        return changes
    }

    @Test(
        "walking from café A to café B on the plain radio switches exactly once, after the midpoint and before reaching B",
        arguments: [1, 2, 3, 4, 5] as [UInt64])
    func walk(seed: UInt64) throws {
        let scenario = TraceScenario.walk(seed: seed)
        let changes = try Self.changes(scenario)
        let first = try #require(changes.first)
        #expect(first.from == nil && first.to == "cafe-a")
        let switches = changes.filter { $0.from != nil }
        #expect(switches.count == 1)
        let switched = try #require(switches.first)
        #expect(switched.from == "cafe-a" && switched.to == "cafe-b")
        #expect(
            switched.at > scenario.midpointTime && switched.at <= scenario.arrivalTime,
            "switched at \(switched.at) s, midpoint \(scenario.midpointTime) s, B at \(scenario.arrivalTime) s")
    }

    @Test(
        "standing at the midpoint for 10 minutes on the plain radio switches at most once",
        arguments: [1, 2, 3, 4, 5] as [UInt64])
    func standStill(seed: UInt64) throws {
        let changes = try Self.changes(TraceScenario.standAtMidpoint(seed: seed))
        #expect(changes.filter { $0.from != nil }.count <= 1, "changes: \(changes)")
    }
}

@Suite("stateless locate")
struct LocateTests {
    static let registry = TraceScenario.placedBeacons(cafeCount: 2, spacing: 20).registry
    static let beaconA = BeaconIdentity(uuid: TraceScenario.companyUUID, major: 1, minor: 1)
    static let beaconB = BeaconIdentity(uuid: TraceScenario.companyUUID, major: 2, minor: 1)
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func sightings(_ beacon: BeaconIdentity, rssi: Int, from: Double, to: Double) -> [LocateSighting] {
        stride(from: from, through: to, by: 0.5).map {
            LocateSighting(identity: beacon, rssi: rssi, time: start.addingTimeInterval($0))
        }
    }

    @Test("no known beacon gives no café with a reason")
    func noKnownBeacon() {
        let unknown = BeaconIdentity(uuid: UUID(), major: 1, minor: 1)
        let result = BeaconLocator.locate(
            sightings: Self.sightings(unknown, rssi: -50, from: 0, to: 2),
            registry: Self.registry, currentCafeID: "cafe-a")
        #expect(result.cafeID == nil && result.reason == .noKnownBeacon && result.proximity == .unknown)
    }

    @Test("without a current café the nearest is taken, with distance and proximity")
    func nearest() throws {
        let sightings =
            Self.sightings(Self.beaconA, rssi: -75, from: 0, to: 3)
            + Self.sightings(Self.beaconB, rssi: -59, from: 0, to: 3)
        let result = BeaconLocator.locate(sightings: sightings, registry: Self.registry, currentCafeID: nil)
        #expect(result.cafeID == "cafe-b" && result.reason == .nearestBeacon)
        #expect(result.proximity == .near)
        #expect(abs(try #require(result.distanceMeters) - 1) < 1e-6)
        #expect(result.beacon?.identity == Self.beaconB)
    }

    @Test("the current café keeps its place when the other is nearer only briefly")
    func keepsCurrent() {
        let sightings =
            Self.sightings(Self.beaconA, rssi: -75, from: 0, to: 1)
            + Self.sightings(Self.beaconB, rssi: -59, from: 0, to: 1)
        let result = BeaconLocator.locate(sightings: sightings, registry: Self.registry, currentCafeID: "cafe-a")
        #expect(result.cafeID == "cafe-a" && result.reason == .currentCafeKept)
    }

    @Test("the current café keeps its place when the other is not nearer by the margin")
    func keepsCurrentWithinMargin() {
        let sightings =
            Self.sightings(Self.beaconA, rssi: -70, from: 0, to: 10)
            + Self.sightings(Self.beaconB, rssi: -69, from: 0, to: 10)
        let result = BeaconLocator.locate(sightings: sightings, registry: Self.registry, currentCafeID: "cafe-a")
        #expect(result.cafeID == "cafe-a" && result.reason == .currentCafeKept)
    }

    @Test("another café nearer by the margin over the dwell takes over")
    func switches() {
        let sightings =
            Self.sightings(Self.beaconA, rssi: -75, from: 0, to: 5)
            + Self.sightings(Self.beaconB, rssi: -59, from: 0, to: 5)
        let result = BeaconLocator.locate(sightings: sightings, registry: Self.registry, currentCafeID: "cafe-a")
        #expect(result.cafeID == "cafe-b" && result.reason == .switchedAfterDwell)
    }

    @Test("a current café not among the sightings is not kept")
    func currentNotSeen() {
        let result = BeaconLocator.locate(
            sightings: Self.sightings(Self.beaconB, rssi: -80, from: 0, to: 0),
            registry: Self.registry, currentCafeID: "cafe-a")
        #expect(result.cafeID == "cafe-b" && result.reason == .nearestBeacon)
    }
}
