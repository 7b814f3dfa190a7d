import CanteenRandom
import Foundation

// MARK: - RadioModel

/// What the trace generator puts between a beacon and the phone, on top of log-distance path loss.
///
/// `.gaussian` is the plain model (exponent 2, 4 dB white noise); `.indoor` adds what a real
/// building does (issue 14): a path-loss exponent per place and beacon, slow shadowing, Rayleigh
/// fading per packet, a body blocking the line now and then, lost advertisements, and beacons whose
/// hardware transmits at different powers (the registry's measured power is right for each).
public struct RadioModel: Hashable, Sendable {
    /// Fast fading applied to each packet.
    public enum Fading: String, Hashable, Sendable, CaseIterable {
        /// No fast fading.
        case none
        /// Rayleigh fading (received power exponentially distributed), scaled so its median is
        /// 0 dB: most packets near the mean, deep drops far below it, few peaks above.
        case rayleigh
    }

    /// The range the place's path-loss exponent is drawn from (once per trace).
    public var pathLossExponent: ClosedRange<Double>
    /// Each beacon's exponent differs from the place's by up to ± this (kept inside the range).
    public var exponentSpread: Double
    /// Standard deviation (dB) of slow shadowing, per beacon.
    public var shadowingSigma: Double
    /// Time constant (s) of the shadowing's correlation (a first-order Gauss–Markov process).
    public var shadowingTimeConstant: Double
    public var fading: Fading
    /// Loss (dB) while a body stands between phone and beacon; 0 turns body blocking off.
    public var bodyLoss: Double
    /// Mean seconds between the starts of two blockings (exponentially distributed); each blocks
    /// the line to one beacon, chosen at random (a person passing between the phone and it).
    public var bodyInterval: Double
    /// How long one blocking lasts (s), drawn uniformly.
    public var bodyDuration: ClosedRange<Double>
    /// The fraction of advertisements lost: drawn per beacon from this range.
    public var packetLoss: ClosedRange<Double>
    /// Beacons' measured power at 1 m is drawn from −59 dBm ± this (the registry holds each right value).
    public var powerSpread: Double
    /// White Gaussian noise (dB) added to every packet.
    public var noiseSigma: Double

    public init(
        pathLossExponent: ClosedRange<Double> = 2...2, exponentSpread: Double = 0,
        shadowingSigma: Double = 0, shadowingTimeConstant: Double = 2,
        fading: Fading = .none, bodyLoss: Double = 0, bodyInterval: Double = 30,
        bodyDuration: ClosedRange<Double> = 1.5...3, packetLoss: ClosedRange<Double> = 0...0,
        powerSpread: Double = 0, noiseSigma: Double = 0
    ) {
        self.pathLossExponent = pathLossExponent
        self.exponentSpread = exponentSpread
        self.shadowingSigma = shadowingSigma
        self.shadowingTimeConstant = shadowingTimeConstant
        self.fading = fading
        self.bodyLoss = bodyLoss
        self.bodyInterval = bodyInterval
        self.bodyDuration = bodyDuration
        self.packetLoss = packetLoss
        self.powerSpread = powerSpread
        self.noiseSigma = noiseSigma
    }

    /// The plain model the first tests used: exponent 2 and 4 dB of white noise, nothing else.
    public static let gaussian = RadioModel(noiseSigma: 4)

    /// A building: place exponent 1.8–2.8 (each beacon within ± 0.2 of it), shadowing σ 4 dB with
    /// τ 2 s (independent per beacon), Rayleigh fading, a 10 dB body blocking one beacon for
    /// 1.5–3 s about every 30 s, 20–30 % of advertisements lost, measured powers −59 ± 6 dBm.
    public static let indoor = RadioModel(
        pathLossExponent: 1.8...2.8, exponentSpread: 0.2, shadowingSigma: 4, shadowingTimeConstant: 2,
        fading: .rayleigh, bodyLoss: 10, bodyInterval: 30, bodyDuration: 1.5...3, packetLoss: 0.2...0.3,
        powerSpread: 6, noiseSigma: 0)
}

// MARK: - RadioChannel

/// The state of one beacon's channel to the phone while a trace is generated.
struct RadioChannel {
    let exponent: Double
    let lossProbability: Double
    private var shadowing: Double
    private var lastTime: Double?
    /// Until when a body blocks this beacon (seconds since the start).
    var blockedUntil = -Double.infinity

    /// Draws the beacon's exponent, loss rate and first shadowing value.
    init(model: RadioModel, placeExponent: Double, using random: inout SeededRandom) {
        let range = model.pathLossExponent
        let deviation =
            model.exponentSpread > 0
            ? Double.random(in: -model.exponentSpread...model.exponentSpread, using: &random) : 0
        exponent = min(range.upperBound, max(range.lowerBound, placeExponent + deviation))
        lossProbability = min(1, max(0, Self.uniform(in: model.packetLoss, using: &random)))
        shadowing = model.shadowingSigma > 0 ? model.shadowingSigma * random.nextGaussian() : 0
    }

    /// The loss (dB) beyond path loss at `time` (s since the start), for one packet.
    mutating func excessLoss(at time: Double, model: RadioModel, using random: inout SeededRandom) -> Double {
        if let lastTime, model.shadowingSigma > 0 {
            let decay = model.shadowingTimeConstant > 0 ? exp(-(time - lastTime) / model.shadowingTimeConstant) : 0
            shadowing =
                shadowing * decay + model.shadowingSigma * (1 - decay * decay).squareRoot() * random.nextGaussian()
        }
        lastTime = time
        var loss = -shadowing
        if time < blockedUntil { loss += model.bodyLoss }
        if model.fading == .rayleigh {
            // |h|² ~ Exp(1); dividing by ln 2 puts its median at 0 dB.
            let power = -log(Double.random(in: Double.ulpOfOne..<1, using: &random)) / log(2.0)
            loss -= 10 * log10(power)
        }
        if model.noiseSigma > 0 { loss -= model.noiseSigma * random.nextGaussian() }
        return loss
    }

    /// A uniform draw; a range of one value draws nothing (so plain traces repeat as before).
    static func uniform(in range: ClosedRange<Double>, using random: inout SeededRandom) -> Double {
        range.lowerBound < range.upperBound ? Double.random(in: range, using: &random) : range.lowerBound
    }
}

// MARK: - BodyBlocking

/// When a body next steps between the phone and one of the beacons.
struct BodyBlocking {
    private var next: Double

    init(model: RadioModel, using random: inout SeededRandom) {
        next = model.bodyLoss > 0 ? Self.exponential(mean: model.bodyInterval, using: &random) : .infinity
    }

    /// Starts every blocking due by `time` on a beacon drawn at random.
    mutating func advance(
        to time: Double, channels: inout [RadioChannel], model: RadioModel,
        using random: inout SeededRandom
    ) {
        while time >= next, !channels.isEmpty {
            let index = Int.random(in: channels.indices, using: &random)
            channels[index].blockedUntil = next + RadioChannel.uniform(in: model.bodyDuration, using: &random)
            next += Self.exponential(mean: model.bodyInterval, using: &random)
        }
    }

    private static func exponential(mean: Double, using random: inout SeededRandom) -> Double {
        -mean * log(Double.random(in: Double.ulpOfOne..<1, using: &random))
    }
}
