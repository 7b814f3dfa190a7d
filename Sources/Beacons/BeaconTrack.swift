import Foundation

// MARK: - BeaconTrack

/// What the ranging engine knows about one beacon.
public struct BeaconTrack: Sendable {
    public let identity: BeaconIdentity
    /// The registration, nil for a beacon not in the registry.
    public let registration: RegisteredBeacon?
    /// Index of the beacon's café in the registry, nil when unregistered.
    public let cafeIndex: Int?
    public internal(set) var address: BluetoothAddress
    /// Measured power at 1 m used for distance: the registry's, else the advertised one.
    public internal(set) var measuredPower: Double
    public internal(set) var lastSeen: Date
    public internal(set) var filter: RSSIFilter
    /// Estimated distance in metres from the smoothed RSSI; nil without an RSSI.
    public internal(set) var distance: Double?
    /// Whether the beacon's region is entered (seen within the exit silence).
    public internal(set) var inRegion: Bool

    /// The smoothed RSSI in dBm.
    public var smoothedRSSI: Double? { filter.value }

    /// The smoothed RSSI relative to the measured power at 1 m (dB): what the engine compares.
    public var level: Double? { filter.value.map { $0 - measuredPower } }

    /// The proximity at `time`: unknown when not seen for the timeout or without a distance.
    public func proximity(at time: Date, configuration: RangingConfiguration) -> Proximity {
        guard inRegion, time.timeIntervalSince(lastSeen) <= configuration.proximityTimeout else { return .unknown }
        return configuration.thresholds.proximity(forDistance: distance)
    }
}
