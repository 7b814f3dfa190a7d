// MARK: - RSSICalibration

/// Measured power from sightings of a beacon held at 1 m: the median RSSI.
public enum RSSICalibration {
    /// The median RSSI of `identity`'s sightings that carry an RSSI; nil when there are none.
    /// With an even count, the mean of the two middle values, rounded half away from zero.
    public static func medianRSSI(of identity: BeaconIdentity, in sightings: [IBeaconSighting]) -> Int? {
        let values = sightings.compactMap { $0.identity == identity ? $0.rssi.map(Int.init) : nil }.sorted()
        guard !values.isEmpty else { return nil }
        let middle = values.count / 2
        if values.count % 2 == 1 { return values[middle] }
        return Int((Double(values[middle - 1] + values[middle]) / 2).rounded())
    }
}
