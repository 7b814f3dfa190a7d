import Foundation

// MARK: - RangingEngine

/// Turns iBeacon sightings into per-beacon smoothed RSSI, distance and proximity, region
/// enter/exit, and the nearest café. Time comes only from the sightings (no wall clock).
public struct RangingEngine: Sendable {
    public let registry: BeaconRegistry
    public let configuration: RangingConfiguration
    /// Every beacon seen, in order of first sighting.
    public private(set) var tracks: [BeaconTrack] = []
    private var trackIndex: [BeaconIdentity: Int] = [:]
    private var selector: NearestCafeSelector
    private var cafeLevels: [Double]
    private var cafePresent: [Bool]
    private var cafePackets: [Int]
    /// Per café, its tracks' indices; and the one café a sighting just changed (the others only
    /// change with time, and are recomputed at each sweep).
    private var cafeTracks: [[Int]]
    private var changedCafe: Int?
    private var nextSweep: Double = -.infinity
    /// Time of the latest sighting.
    public private(set) var now: Date?

    public init(registry: BeaconRegistry, configuration: RangingConfiguration = RangingConfiguration()) {
        self.registry = registry
        self.configuration = configuration
        self.selector = NearestCafeSelector(hysteresis: configuration.hysteresis)
        self.cafeLevels = Array(repeating: -.infinity, count: registry.cafeIDs.count)
        self.cafePresent = Array(repeating: false, count: registry.cafeIDs.count)
        self.cafePackets = Array(repeating: 0, count: registry.cafeIDs.count)
        self.cafeTracks = Array(repeating: [], count: registry.cafeIDs.count)
    }

    // MARK: - State

    /// The current nearest café, nil when none.
    public var nearestCafeID: String? {
        selector.current.map { registry.cafeIDs[$0] }
    }

    /// Why the nearest café last changed; nil before the first decision.
    public var lastChangeReason: NearestCafeSelector.Reason? { selector.lastReason }

    /// Sets the current café, as the caller of the stateless locate API believes it to be.
    public mutating func assumeCurrentCafe(_ cafeID: String?) {
        selector.current = cafeID.flatMap { registry.cafeIndex(of: $0) }
    }

    /// The track of a beacon.
    public func track(for identity: BeaconIdentity) -> BeaconTrack? {
        trackIndex[identity].map { tracks[$0] }
    }

    /// The nearest beacon of a café (smallest distance; else the latest seen) that is in region.
    public func nearestBeacon(ofCafe cafeID: String) -> BeaconTrack? {
        guard let cafe = registry.cafeIndex(of: cafeID) else { return nil }
        var best: BeaconTrack?
        for track in tracks where track.cafeIndex == cafe && track.inRegion {
            guard let current = best else {
                best = track
                continue
            }
            switch (track.distance, current.distance) {
            case let (.some(a), .some(b)) where a < b: best = track
            case (.some, .none): best = track
            case (.none, .none) where track.lastSeen > current.lastSeen: best = track
            default: break
            }
        }
        return best
    }

    // MARK: - Processing

    /// Takes one sighting; calls `events` for what changed.
    public mutating func process(_ sighting: IBeaconSighting, events: (RangingEvent) -> Void = { _ in }) {
        let time = sighting.time
        let seconds = time.timeIntervalSinceReferenceDate
        now = max(now ?? time, time)
        let index: Int
        if let existing = trackIndex[sighting.identity] {
            index = existing
        } else {
            let registration = registry[sighting.identity]
            index = tracks.count
            tracks.append(
                BeaconTrack(
                    identity: sighting.identity, registration: registration,
                    cafeIndex: registration.flatMap { registry.cafeIndex(of: $0.cafeID) },
                    address: sighting.address,
                    measuredPower: Double(registration?.measuredPower ?? Int(sighting.txPower)),
                    lastSeen: time, filter: RSSIFilter(smoothing: configuration.smoothing),
                    distance: nil, inRegion: false))
            trackIndex[sighting.identity] = index
            if let cafe = tracks[index].cafeIndex { cafeTracks[cafe].append(index) }
        }
        if !tracks[index].inRegion {
            tracks[index].inRegion = true
            events(.regionEntered(sighting.identity, cafeID: tracks[index].registration?.cafeID, at: time))
        }
        tracks[index].lastSeen = max(tracks[index].lastSeen, time)
        tracks[index].address = sighting.address
        if tracks[index].registration == nil {
            tracks[index].measuredPower = Double(sighting.txPower)
        }
        if let rssi = sighting.rssi {
            tracks[index].filter.add(rssi: Double(rssi), time: seconds)
            if let smoothed = tracks[index].filter.value {
                tracks[index].distance = configuration.distanceModel.distance(
                    rssi: smoothed, measuredPower: tracks[index].measuredPower)
            }
        }
        changedCafe = tracks[index].cafeIndex ?? -1
        advance(to: time, events: events)
    }

    /// Moves time forward without a sighting: exits silent regions, updates the nearest café.
    public mutating func advance(to time: Date, events: (RangingEvent) -> Void = { _ in }) {
        advance(to: time, settle: false, events: events)
    }

    /// Chooses a café now if none is chosen yet, without waiting for the acquisition time.
    public mutating func settle(events: (RangingEvent) -> Void = { _ in }) {
        guard let now else { return }
        advance(to: now, settle: true, events: events)
    }

    private mutating func advance(to time: Date, settle: Bool, events: (RangingEvent) -> Void) {
        let seconds = time.timeIntervalSinceReferenceDate
        now = max(now ?? time, time)
        // A sighting changes one café; time passing (timeouts, exits) is caught up with at each sweep.
        var recomputeAll = changedCafe == nil
        let changedIndex = changedCafe ?? -1
        changedCafe = nil
        if seconds >= nextSweep {
            recomputeAll = true
            nextSweep = seconds + min(1, configuration.regionExitSilence / 2)
            for index in tracks.indices where tracks[index].inRegion {
                if time.timeIntervalSince(tracks[index].lastSeen) > configuration.regionExitSilence {
                    tracks[index].inRegion = false
                    tracks[index].filter.reset()
                    tracks[index].distance = nil
                    events(.regionExited(tracks[index].identity, cafeID: tracks[index].registration?.cafeID, at: time))
                }
            }
        }
        guard !cafeLevels.isEmpty else { return }
        if recomputeAll {
            for cafe in cafeLevels.indices { recompute(cafe: cafe, at: time) }
        } else if changedIndex >= 0 {
            recompute(cafe: changedIndex, at: time)
        }
        let previous = selector.current
        let changed =
            settle
            ? selector.settle(levels: cafeLevels, present: cafePresent)
            : selector.update(time: seconds, levels: cafeLevels, present: cafePresent, packets: cafePackets)
        if changed {
            events(
                .nearestCafeChanged(
                    from: previous.map { registry.cafeIDs[$0] },
                    to: selector.current.map { registry.cafeIDs[$0] }, at: time))
        }
    }

    /// A café's level (its strongest beacon heard within the proximity timeout), whether any of
    /// its beacons is in region, and their packets.
    private mutating func recompute(cafe: Int, at time: Date) {
        var level = -Double.infinity
        var present = false
        var packets = 0
        for index in cafeTracks[cafe] where tracks[index].inRegion {
            present = true
            packets += tracks[index].filter.sampleCount
            if let trackLevel = tracks[index].level,
                time.timeIntervalSince(tracks[index].lastSeen) <= configuration.proximityTimeout,
                trackLevel > level
            {
                level = trackLevel
            }
        }
        cafeLevels[cafe] = level
        cafePresent[cafe] = present
        cafePackets[cafe] = packets
    }
}
