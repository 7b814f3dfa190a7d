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
        }
    }

    /// Forgets all samples.
    public mutating func reset() {
        value = nil
        sampleCount = 0
        window.removeAll(keepingCapacity: true)
    }
}
