extension RandomAccessCollection {
    /// The nearest-rank percentile of these values, sorted ascending: the smallest value with at
    /// least `percent` % of the values at or below it; nil when there are none.
    public func nearestRank(_ percent: Int) -> Element? {
        guard !isEmpty else { return nil }
        let rank = (percent * count + 99) / 100
        return self[index(startIndex, offsetBy: Swift.max(0, Swift.min(count - 1, rank - 1)))]
    }
}
