// MARK: - RangingConfiguration

/// The knobs of ranging: smoothing, distance model, proximity thresholds, timeouts, hysteresis.
///
/// Defaults and why (docs/ranging.md has the figures):
/// - smoothing: `.indoor`: packets averaged as power over 0.5 s (a Rayleigh fade weighs what it
///   is worth, not −20 dB), the level rising with 0.3 s and falling with 4 s, held at its highest
///   for 3 s so that a body passing in front of a beacon (about 10 dB for 1.5–3 s) does not move it.
/// - distance: log-distance path loss, exponent 2.0 (free space); the measured power at 1 m comes
///   from the registry when the beacon is registered, else from the advertisement.
/// - proximity: immediate below 0.5 m, near below 3 m, far beyond; unknown without an RSSI or when the
///   beacon has not been seen for 10 s.
/// - regions: entered on the first sighting, exited after 30 s of silence.
/// - nearest café: cafés are compared by level (smoothed RSSI − measured power, their strongest
///   beacon), see `CafeHysteresis`.
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

    public init(
        smoothing: RSSISmoothing = .indoor,
        distanceModel: DistanceModel = .logDistance(exponent: 2),
        thresholds: ProximityThresholds = ProximityThresholds(),
        proximityTimeout: Double = 10,
        regionExitSilence: Double = 30,
        hysteresis: CafeHysteresis = CafeHysteresis()
    ) {
        self.smoothing = smoothing
        self.distanceModel = distanceModel
        self.thresholds = thresholds
        self.proximityTimeout = proximityTimeout
        self.regionExitSilence = regionExitSilence
        self.hysteresis = hysteresis
    }
}

// MARK: - CafeHysteresis

/// How much stronger, and for how long, another café must be before it takes over (levels in dB:
/// smoothed RSSI − measured power; 6 dB is a distance ratio of 2 in free space).
///
/// Defaults: a lead of 12 dB on 4 of the challenger's packets (fast path), 5 dB on 2 while the
/// current café has fallen 10 dB below its own 30 s average (leaving it); an averaged lead of 5 dB
/// held for 2 s (slow path, 15 s time constant; 2 dB for 3 s in the first minute, to correct a first
/// guess); the current café counted at its highest over 1 s more than the smoothing's hold; 10 dB
/// of reluctance per change fading over 3 minutes; the first café after 1.5 s of listening, from at
/// least 2 packets. docs/ranging.md says how they were chosen and what they score.
public struct CafeHysteresis: Hashable, Sendable {
    /// Lead (dB) the challenger must hold for the dwell (fast path).
    public var margin: Double
    /// Seconds the challenger must keep the lead (fast path).
    public var dwell: Double
    /// Packets of the challenger's the lead must hold on (fast path; two while leaving the current café).
    public var dwellPackets: Int
    /// Seconds over which the current café's level counts at its highest (on top of the smoothing's
    /// own hold), so a short dip of the café one is at does not hand the lead to another.
    public var currentHold: Double
    /// How far (dB) the current café's level must fall below its own average since it was chosen
    /// for the device to count as leaving it.
    public var departureDrop: Double
    /// Time constant (s) of that average.
    public var departureTimeConstant: Double
    /// Lead (dB) enough for the fast path while leaving the current café.
    public var departureMargin: Double
    /// Time constant (s) of the averaged lead (slow path).
    public var slowTimeConstant: Double
    /// Averaged lead (dB) the challenger must keep for the slow dwell (slow path).
    public var slowMargin: Double
    /// Seconds the averaged lead must stay above the slow margin.
    public var slowDwell: Double
    /// Seconds after the first decision (while nothing has changed since) during which the slow
    /// path uses the probation margin and dwell.
    public var probation: Double
    /// Averaged lead (dB) enough during the probation.
    public var probationMargin: Double
    /// Seconds the averaged lead must stay above the probation margin.
    public var probationDwell: Double
    /// Seconds of averaging before the probation margin applies.
    public var probationMinimum: Double
    /// dB added to both margins by each change of café.
    public var reluctance: Double
    /// Time constant (s) with which the reluctance fades.
    public var reluctanceDecay: Double
    /// Seconds to listen before the first café is chosen (so the first beacon heard does not win
    /// just by being first).
    public var acquisition: Double
    /// Packets the first café must have given (never a decision from one packet).
    public var acquisitionPackets: Int

    public init(
        margin: Double = 12, dwell: Double = 0, dwellPackets: Int = 4, currentHold: Double = 1,
        departureDrop: Double = 10, departureTimeConstant: Double = 30, departureMargin: Double = 5,
        slowTimeConstant: Double = 15, slowMargin: Double = 5, slowDwell: Double = 2,
        probation: Double = 60, probationMargin: Double = 2, probationDwell: Double = 3,
        probationMinimum: Double = 3, reluctance: Double = 10, reluctanceDecay: Double = 180,
        acquisition: Double = 1.5, acquisitionPackets: Int = 2
    ) {
        self.margin = margin
        self.dwell = dwell
        self.dwellPackets = dwellPackets
        self.currentHold = currentHold
        self.departureDrop = departureDrop
        self.departureTimeConstant = departureTimeConstant
        self.departureMargin = departureMargin
        self.slowTimeConstant = slowTimeConstant
        self.slowMargin = slowMargin
        self.slowDwell = slowDwell
        self.probation = probation
        self.probationMargin = probationMargin
        self.probationDwell = probationDwell
        self.probationMinimum = probationMinimum
        self.reluctance = reluctance
        self.reluctanceDecay = reluctanceDecay
        self.acquisition = acquisition
        self.acquisitionPackets = acquisitionPackets
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
