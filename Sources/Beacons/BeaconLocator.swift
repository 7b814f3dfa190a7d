import Foundation

// MARK: - LocateSighting

/// One sighting as a phone reports it to the locate API.
public struct LocateSighting: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// RSSI in dBm; nil when not available.
    public var rssi: Int?
    /// Advertised measured power, used only for beacons without a registered one.
    public var txPower: Int?
    public var time: Date

    public init(identity: BeaconIdentity, rssi: Int?, txPower: Int? = nil, time: Date) {
        self.identity = identity
        self.rssi = rssi
        self.txPower = txPower
        self.time = time
    }
}

// MARK: - LocateResult

/// Which café the sightings place the device in, and why.
public struct LocateResult: Hashable, Sendable {
    /// Why the locator answered as it did; `rawValue` is the stable code the API returns.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// No sighting was of a registered beacon (cafeID is nil).
        case noKnownBeacon = "no_known_beacon"
        /// No current café was given (or it was not seen): the nearest café was taken.
        case nearestBeacon = "nearest_beacon"
        /// The current café keeps its place: no other café was nearer by the margin over the dwell.
        case currentCafeKept = "current_cafe_kept"
        /// Another café was nearer by the margin for the dwell and took over.
        case switchedAfterDwell = "switched_after_dwell"
        /// Registered beacons were seen, but the engine chose no café from them (cafeID is nil);
        /// keeps the answer coherent should the engine ever decline.
        case noUsableSighting = "no_usable_sighting"
    }

    public var cafeID: String?
    public var proximity: Proximity
    public var distanceMeters: Double?
    /// The café's nearest beacon.
    public var beacon: RegisteredBeacon?
    public var reason: Reason
}

// MARK: - BeaconLocator

/// The stateless entry point for the locate API: the same engine and hysteresis, judged from the
/// sightings' own times.
public enum BeaconLocator {
    /// Places the device given its sightings and the café it believes it is in.
    public static func locate(
        sightings: [LocateSighting], registry: BeaconRegistry, currentCafeID: String?,
        configuration: RangingConfiguration = RangingConfiguration()
    ) -> LocateResult {
        let known = sightings.filter { registry[$0.identity] != nil }
        guard !known.isEmpty else {
            return LocateResult(
                cafeID: nil, proximity: .unknown, distanceMeters: nil, beacon: nil, reason: .noKnownBeacon)
        }
        let seenCafes = Set(known.compactMap { registry[$0.identity]?.cafeID })
        let assumed = currentCafeID.flatMap { seenCafes.contains($0) ? $0 : nil }
        var engine = RangingEngine(registry: registry, configuration: configuration)
        engine.assumeCurrentCafe(assumed)
        let ordered = known.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        for (_, sighting) in ordered {
            let power = registry[sighting.identity]?.measuredPower ?? sighting.txPower ?? -59
            engine.process(
                IBeaconSighting(
                    time: sighting.time, address: BluetoothAddress(rawValue: 0), identity: sighting.identity,
                    txPower: Int8(clamping: power), rssi: sighting.rssi.map { Int8(clamping: $0) }))
        }
        engine.settle()
        let cafeID = engine.nearestCafeID
        let reason: LocateResult.Reason =
            switch (assumed, cafeID) {
            case (_, nil): .noUsableSighting
            case (nil, _): .nearestBeacon
            case let (assumed?, cafe?) where assumed == cafe: .currentCafeKept
            default: .switchedAfterDwell
            }
        guard let cafeID, let track = engine.nearestBeacon(ofCafe: cafeID), let now = engine.now else {
            return LocateResult(cafeID: cafeID, proximity: .unknown, distanceMeters: nil, beacon: nil, reason: reason)
        }
        return LocateResult(
            cafeID: cafeID, proximity: track.proximity(at: now, configuration: configuration),
            distanceMeters: track.distance, beacon: track.registration, reason: reason)
    }
}
