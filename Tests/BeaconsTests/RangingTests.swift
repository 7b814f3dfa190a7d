import Foundation
import Testing

@testable import Beacons

@Suite("ranging one beacon")
struct RangingTests {
    static let registry = BeaconRegistry([
        RegisteredBeacon(identity: Fixtures.identity, cafeID: "cafe-a", label: "Counter", measuredPower: -59)
    ])
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func sighting(_ rssi: Int8?, at seconds: Double, identity: BeaconIdentity = Fixtures.identity)
        -> IBeaconSighting
    {
        IBeaconSighting(
            time: start.addingTimeInterval(seconds), address: Fixtures.address, identity: identity,
            txPower: -40, rssi: rssi)
    }

    @Test("ARMA smoothing averages the first samples, then follows with the time constant")
    func armaFilter() throws {
        var filter = RSSIFilter(smoothing: .arma(timeConstant: 2))
        filter.add(rssi: -60, time: 0)
        filter.add(rssi: -70, time: 0)
        #expect(filter.value == -65)
        for step in 1...100 { filter.add(rssi: -80, time: Double(step) * 0.1) }
        let value = try #require(filter.value)
        #expect(value < -79 && value > -80.5)
    }

    @Test("trimmed mean drops the extremes of the window")
    func trimmedMean() {
        var filter = RSSIFilter(smoothing: .trimmedMean(window: 20, trimFraction: 0.1))
        for (index, rssi) in [-60.0, -61, -59, -60, -60, -61, -59, -60, -60, -10].enumerated() {
            filter.add(rssi: rssi, time: Double(index))
        }
        #expect(filter.value == -59.875)  // -10 and one -61 dropped
        filter.add(rssi: -90, time: 100)
        #expect(filter.value == -90)
    }

    @Test("log-distance: measured power gives 1 m, 20 dB less gives 10 m with exponent 2")
    func logDistance() throws {
        let model = DistanceModel.logDistance(exponent: 2)
        #expect(try #require(model.distance(rssi: -59, measuredPower: -59)) == 1)
        #expect(abs(try #require(model.distance(rssi: -79, measuredPower: -59)) - 10) < 1e-9)
        let steeper = DistanceModel.logDistance(exponent: 4)
        #expect(abs(try #require(steeper.distance(rssi: -79, measuredPower: -59)) - 10.0.squareRoot()) < 1e-9)
        #expect(model.distance(rssi: -59, measuredPower: 0) == nil)
    }

    @Test("AltBeacon's curve fit matches its formula on both sides of 1 m")
    func curveFit() throws {
        let model = DistanceModel.altBeaconNexus5
        let near = try #require(model.distance(rssi: -50, measuredPower: -59))
        #expect(abs(near - pow(50.0 / 59.0, 10)) < 1e-9)
        let far = try #require(model.distance(rssi: -80, measuredPower: -59))
        #expect(abs(far - (0.42093 * pow(80.0 / 59.0, 6.9476) + 0.54992)) < 1e-9)
    }

    @Test("proximity thresholds: below 0.5 m immediate, below 3 m near, else far, none unknown")
    func thresholds() {
        let thresholds = ProximityThresholds()
        #expect(thresholds.proximity(forDistance: 0.49) == .immediate)
        #expect(thresholds.proximity(forDistance: 0.5) == .near)
        #expect(thresholds.proximity(forDistance: 2.99) == .near)
        #expect(thresholds.proximity(forDistance: 3) == .far)
        #expect(thresholds.proximity(forDistance: nil) == .unknown)
    }

    @Test("the registry's measured power is used, and a beacon unseen for the timeout is unknown")
    func timeoutUnknown() throws {
        var engine = RangingEngine(registry: Self.registry)
        engine.process(Self.sighting(-59, at: 0))
        let track = try #require(engine.track(for: Fixtures.identity))
        #expect(track.distance == 1)
        #expect(track.proximity(at: Self.start.addingTimeInterval(1), configuration: engine.configuration) == .near)
        #expect(
            track.proximity(at: Self.start.addingTimeInterval(10.5), configuration: engine.configuration) == .unknown)
        engine.process(Self.sighting(nil, at: 11))
        #expect(
            engine.track(for: Fixtures.identity)?.proximity(
                at: Self.start.addingTimeInterval(11),
                configuration: engine.configuration) == .near)
    }

    @Test("regions enter on the first sighting and exit after the configured silence")
    func regions() {
        var engine = RangingEngine(registry: Self.registry, configuration: RangingConfiguration(regionExitSilence: 30))
        var events: [RangingEvent] = []
        engine.process(Self.sighting(-70, at: 0)) { events.append($0) }
        engine.process(Self.sighting(-70, at: 5)) { events.append($0) }
        engine.advance(to: Self.start.addingTimeInterval(34)) { events.append($0) }
        #expect(
            events == [
                .regionEntered(Fixtures.identity, cafeID: "cafe-a", at: Self.start),
                .nearestCafeChanged(from: nil, to: "cafe-a", at: Self.start.addingTimeInterval(5)),
            ])
        engine.advance(to: Self.start.addingTimeInterval(35.5)) { events.append($0) }
        #expect(
            events.suffix(2) == [
                .regionExited(Fixtures.identity, cafeID: "cafe-a", at: Self.start.addingTimeInterval(35.5)),
                .nearestCafeChanged(from: "cafe-a", to: nil, at: Self.start.addingTimeInterval(35.5)),
            ])
        events.removeAll()
        engine.process(Self.sighting(-70, at: 40)) { events.append($0) }
        #expect(
            events.first == .regionEntered(Fixtures.identity, cafeID: "cafe-a", at: Self.start.addingTimeInterval(40)))
    }

    @Test("unregistered beacons are tracked with their advertised power but choose no café")
    func unregistered() throws {
        let other = BeaconIdentity(uuid: Fixtures.uuid, major: 9, minor: 9)
        var engine = RangingEngine(registry: Self.registry)
        engine.process(Self.sighting(-40, at: 0, identity: other))
        #expect(engine.nearestCafeID == nil)
        #expect(try #require(engine.track(for: other)).distance == 1)
    }

    @Test("calibration takes the median RSSI of the beacon's sightings")
    func calibration() {
        let sightings =
            [-60, -58, -70, -59, -61].map { Self.sighting(Int8($0), at: 0) }
            + [
                Self.sighting(nil, at: 1),
                Self.sighting(-10, at: 1, identity: BeaconIdentity(uuid: Fixtures.uuid, major: 1, minor: 1)),
            ]
        #expect(RSSICalibration.medianRSSI(of: Fixtures.identity, in: sightings) == -60)
        #expect(RSSICalibration.medianRSSI(of: Fixtures.identity, in: Array(sightings.prefix(4))) == -60)
        #expect(RSSICalibration.medianRSSI(of: Fixtures.identity, in: []) == nil)
    }

    @Test("the registry reads the JSON list ops write")
    func registryJSON() throws {
        let json = """
            [{"uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 258, "minor": 772,
              "cafeId": "cafe-a", "label": "Counter", "measuredPower": -61}]
            """
        let registry = try BeaconRegistry(json: Data(json.utf8))
        #expect(registry[Fixtures.identity]?.measuredPower == -61)
        #expect(registry.cafeIDs == ["cafe-a"])
    }
}
