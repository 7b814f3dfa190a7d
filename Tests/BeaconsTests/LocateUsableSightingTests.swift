import Foundation
import Testing
@testable import Beacons

@Suite("stateless locate without a usable signal")
struct LocateUsableSightingTests {
    @Test("registered beacons seen only without an RSSI place the device nowhere, saying so")
    func noRSSI() {
        let registry = TraceScenario.placedBeacons(cafeCount: 2, spacing: 20).registry
        let beacon = BeaconIdentity(uuid: TraceScenario.companyUUID, major: 1, minor: 1)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let sightings = (0..<4).map { LocateSighting(identity: beacon, rssi: nil, time: start.addingTimeInterval(Double($0))) }
        let result = BeaconLocator.locate(sightings: sightings, registry: registry, currentCafeID: nil)
        #expect(result.cafeID == nil)
        #expect(result.reason == .noUsableSighting)
        #expect(result.beacon == nil)
    }
}
