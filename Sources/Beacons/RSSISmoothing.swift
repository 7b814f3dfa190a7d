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
            let weight = max(smoothingWeight(elapsed, timeConstant), 1 / Double(sampleCount))
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
            let milliwatts = Self.milliwatts(rssi)
            if sampleCount == 1 {
                power = milliwatts
                level = rssi
            } else {
                let elapsed = max(0, time - lastTime)
                power += Self.weight(elapsed, powerConstant, sampleCount) * (milliwatts - power)
                let averaged = 10 * log10(max(power, 1e-30))
                let constant = averaged > level ? rise : fall
                level += smoothingWeight(elapsed, constant) * (averaged - level)
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

    /// 10^(dBm/10), from a table for the whole dBm a controller reports.
    private static func milliwatts(_ rssi: Double) -> Double {
        let whole = Int(exactly: rssi) ?? Int.min
        guard whole >= -128, whole <= 127 else { return pow(10, rssi / 10) }
        return milliwattTable[whole + 128]
    }

    private static let milliwattTable: [Double] = (-128...127).map { pow(10, Double($0) / 10) }

    /// Time-weighted smoothing factor; the first samples are averaged (at least 1/n).
    private static func weight(_ elapsed: Double, _ timeConstant: Double, _ count: Int) -> Double {
        max(smoothingWeight(elapsed, timeConstant), 1 / Double(count))
    }
}

// MARK: - Smoothing weight

/// 1 − e^(−elapsed/τ), the weight of a new sample in time-weighted exponential smoothing (1 when
/// τ is 0). Most updates come a few ms apart on a time constant of seconds: there a Taylor series
/// (error below 1e-12) stands in for `exp`, which the ranging engine would otherwise call several
/// times per packet.
@inline(__always)
func smoothingWeight(_ elapsed: Double, _ timeConstant: Double) -> Double {
    guard timeConstant > 0 else { return 1 }
    let x = elapsed / timeConstant
    if x < 0.01 { return x * (1 - x * (0.5 - x * (1.0 / 6 - x / 24))) }
    return 1 - exp(-x)
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
        expire(at: time, keeping: seconds)
    }

    /// Forgets the values older than `seconds` before `time`, except the latest.
    mutating func expire(at time: Double, keeping seconds: Double) {
        while head < times.count - 1, times[head] < time - seconds { head += 1 }
        if head > 64 {
            times.removeFirst(head)
            values.removeFirst(head)
            head = 0
        }
    }
}
