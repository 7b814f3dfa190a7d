// MARK: - RangingConfiguration

/// The knobs of ranging: smoothing, distance model, proximity thresholds, timeouts, hysteresis.
///
/// Defaults and why:
/// - smoothing: time-aware ARMA with a 1.5 s time constant (AltBeacon's ARMA, but weighted by the time
///   between samples so it does not depend on the advertising rate); the first samples are averaged.
/// - distance: log-distance path loss, exponent 2.0 (free space); the measured power at 1 m comes
///   from the registry when the beacon is registered, else from the advertisement.
/// - proximity: immediate below 0.5 m, near below 3 m, far beyond; unknown without an RSSI or when the
///   beacon has not been seen for 10 s.
/// - regions: entered on the first sighting, exited after 30 s of silence.
/// - nearest café: the first one is chosen after 1 s of listening; after that another café takes
///   over only when nearer by max(0.5 m, 25 % of the current café's distance) continuously for 1.5 s.
public struct RangingConfiguration: Hashable, Sendable {
    public var smoothing: RSSISmoothing
    public var distanceModel: DistanceModel
    public var thresholds: ProximityThresholds
    /// Seconds without a sighting after which a beacon's proximity is unknown.
    public var proximityTimeout: Double
    /// Seconds of silence after which a beacon's region is exited.
    public var regionExitSilence: Double
    /// Hysteresis for the nearest café.
    public var hysteresis: CafeHysteresis

    public init(smoothing: RSSISmoothing = .arma(timeConstant: 1.5),
                distanceModel: DistanceModel = .logDistance(exponent: 2),
                thresholds: ProximityThresholds = ProximityThresholds(),
                proximityTimeout: Double = 10,
                regionExitSilence: Double = 30,
                hysteresis: CafeHysteresis = CafeHysteresis()) {
        self.smoothing = smoothing
        self.distanceModel = distanceModel
        self.thresholds = thresholds
        self.proximityTimeout = proximityTimeout
        self.regionExitSilence = regionExitSilence
        self.hysteresis = hysteresis
    }
}

// MARK: - CafeHysteresis

/// How much nearer, and for how long, another café must be before it takes over.
public struct CafeHysteresis: Hashable, Sendable {
    /// Least margin in metres.
    public var marginMetres: Double
    /// Margin as a fraction of the current café's distance (distance noise grows with distance).
    public var marginFraction: Double
    /// Seconds the challenger must stay nearer by the margin.
    public var dwell: Double
    /// Seconds to listen before the first café is chosen (so the first beacon heard does not win
    /// just by being first).
    public var acquisition: Double

    public init(marginMetres: Double = 0.5, marginFraction: Double = 0.25, dwell: Double = 1.5, acquisition: Double = 1) {
        self.marginMetres = marginMetres
        self.marginFraction = marginFraction
        self.dwell = dwell
        self.acquisition = acquisition
    }

    /// The margin a challenger must beat when the current café is `distance` away.
    public func margin(forCurrentDistance distance: Double) -> Double {
        max(marginMetres, marginFraction * distance)
    }
}

// MARK: - ProximityThresholds

/// Distances (metres) separating immediate, near and far.
public struct ProximityThresholds: Hashable, Sendable {
    public var immediateBelow: Double
    public var nearBelow: Double

    public init(immediateBelow: Double = 0.5, nearBelow: Double = 3.0) {
        self.immediateBelow = immediateBelow
        self.nearBelow = nearBelow
    }

    /// The proximity of a distance; unknown when there is none.
    public func proximity(forDistance distance: Double?) -> Proximity {
        guard let distance, distance.isFinite else { return .unknown }
        if distance < immediateBelow { return .immediate }
        if distance < nearBelow { return .near }
        return .far
    }
}

// MARK: - Proximity

/// How close a beacon is, in the four classes apps know from Core Location.
public enum Proximity: String, Hashable, Sendable, Codable, CaseIterable {
    case immediate
    case near
    case far
    case unknown
}
