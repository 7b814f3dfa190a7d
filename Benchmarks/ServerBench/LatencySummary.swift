import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic nanoseconds (CLOCK_MONOTONIC), comparable across threads.
func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Percentiles of a set of latencies (nanoseconds), printed in milliseconds.
struct LatencySummary {
    let count: Int
    private let sorted: [UInt64]

    init(_ samples: [UInt64]) {
        sorted = samples.sorted()
        count = samples.count
    }

    /// The nearest-rank percentile in milliseconds (0 when there are no samples).
    func milliseconds(atPercentile percentile: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1e6
    }

    var text: String {
        func format(_ value: Double) -> String { String(format: "%.2f", value) }
        return "p50 \(format(milliseconds(atPercentile: 50))) ms, p99 \(format(milliseconds(atPercentile: 99))) ms, "
            + "max \(format(milliseconds(atPercentile: 100))) ms"
    }
}
