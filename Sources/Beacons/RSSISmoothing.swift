import Foundation

// MARK: - RSSISmoothing

/// How a beacon's RSSI samples are smoothed.
public enum RSSISmoothing: Hashable, Sendable {
    /// Exponential smoothing weighted by time: x ← x + (1 − e^(−Δt/τ))·(rssi − x); the first samples
    /// are averaged (weight at least 1/n) so the estimate starts unbiased.
    case arma(timeConstant: Double)
    /// AltBeacon's running average: samples of the last `window` seconds, the highest and lowest
    /// `trimFraction` dropped, the rest averaged.
    case trimmedMean(window: Double, trimFraction: Double)
    /// Made for indoor radio, where the signal mostly drops (fading, a body in the way) and rarely
    /// peaks: packets are averaged as power (mW, not dB, so a deep fade weighs what it is worth),
    /// with time constant `power`; that level in dB then rises with time constant `rise` and falls
    /// with `fall`, and the value is its highest over the last `hold` seconds, so a drop shorter
    /// than `hold` does not count.
    case robust(power: Double, rise: Double, fall: Double, hold: Double)

    /// The default: power averaged over 0.5 s, rising with 0.3 s, falling with 4 s, 3 s hold.
    public static let indoor = RSSISmoothing.robust(power: 0.5, rise: 0.3, fall: 4, hold: 3)
}

// MARK: - RSSIFilter

/// The smoothing state of one beacon.
public struct RSSIFilter: Sendable {
    public let smoothing: RSSISmoothing
    /// The smoothed RSSI (dBm), nil before the first sample.
    public private(set) var value: Double?
    public private(set) var sampleCount = 0
    private var lastTime: Double = 0
    private var window: [(time: Double, rssi: Double)] = []
    /// `.robust`: the power average (mW) and the level (dBm) before the hold.
    private var power: Double = 0
    private var level: Double = 0
    private var held = MaximumWindow()

    public init(smoothing: RSSISmoothing) {
        self.smoothing = smoothing
    }

    /// Adds a sample taken at `time` (seconds on any fixed clock).
    public mutating func add(rssi: Double, time: Double) {
        sampleCount += 1
        switch smoothing {
        case let .arma(timeConstant):
            guard let current = value else {
                value = rssi
                lastTime = time
                return
            }
            let elapsed = max(0, time - lastTime)
            let timeWeight = timeConstant > 0 ? 1 - exp(-elapsed / timeConstant) : 1
            let weight = max(timeWeight, 1 / Double(sampleCount))
            value = current + weight * (rssi - current)
            lastTime = max(lastTime, time)
        case let .trimmedMean(windowLength, trimFraction):
            window.append((time, rssi))
            let oldest = time - windowLength
            if let firstKept = window.firstIndex(where: { $0.time >= oldest }), firstKept > 0 {
                window.removeFirst(firstKept)
            }
            var sorted = window.map(\.rssi)
            sorted.sort()
            let trim = Int(Double(sorted.count) * min(max(trimFraction, 0), 0.49))
            let kept = sorted[trim..<(sorted.count - trim)]
            value = kept.isEmpty ? rssi : kept.reduce(0, +) / Double(kept.count)
        case let .robust(powerConstant, rise, fall, hold):
            let milliwatts = pow(10, rssi / 10)
            if sampleCount == 1 {
                power = milliwatts
                level = rssi
            } else {
                let elapsed = max(0, time - lastTime)
                power += Self.weight(elapsed, powerConstant, sampleCount) * (milliwatts - power)
                let averaged = 10 * log10(max(power, 1e-30))
                let constant = averaged > level ? rise : fall
                level += (constant > 0 ? 1 - exp(-elapsed / constant) : 1) * (averaged - level)
            }
            lastTime = max(lastTime, time)
            held.add(level, at: time, keeping: hold)
            value = held.maximum
        }
    }

    /// Forgets all samples.
    public mutating func reset() {
        value = nil
        sampleCount = 0
        window.removeAll(keepingCapacity: true)
        held = MaximumWindow()
    }

    /// Time-weighted smoothing factor; the first samples are averaged (at least 1/n).
    private static func weight(_ elapsed: Double, _ timeConstant: Double, _ count: Int) -> Double {
        let timeWeight = timeConstant > 0 ? 1 - exp(-elapsed / timeConstant) : 1
        return max(timeWeight, 1 / Double(count))
    }
}

// MARK: - MaximumWindow

/// The largest value added within the last few seconds, in amortised constant time (a monotonic
/// queue: values that can never be the maximum again are dropped as they come).
struct MaximumWindow: Sendable {
    private var times: [Double] = []
    private var values: [Double] = []
    private var head = 0

    var maximum: Double? { head < values.count ? values[head] : nil }

    mutating func add(_ value: Double, at time: Double, keeping seconds: Double) {
        while values.count > head, let last = values.last, last <= value {
            values.removeLast()
            times.removeLast()
        }
        times.append(time)
        values.append(value)
        while head < times.count - 1, times[head] < time - seconds { head += 1 }
        if head > 64 {
            times.removeFirst(head)
            values.removeFirst(head)
            head = 0
        }
    }
}
