import Foundation

// MARK: - RangingReplay

/// Runs the ranging engine over recorded sightings (a capture), as `canteen beacons range` does.
public enum RangingReplay {
    /// Every ranging event in order, and the engine as it stands after the last sighting.
    public static func run(sightings: [IBeaconSighting], registry: BeaconRegistry,
                           configuration: RangingConfiguration = RangingConfiguration())
        -> (events: [RangingEvent], engine: RangingEngine) {
        var engine = RangingEngine(registry: registry, configuration: configuration)
        var events: [RangingEvent] = []
        for sighting in sightings {
            engine.process(sighting) { events.append($0) }
        }
        return (events, engine)
    }
}
