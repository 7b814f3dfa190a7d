import Foundation

// MARK: - RangingEvent

/// Something the ranging engine noticed while taking a sighting.
public enum RangingEvent: Hashable, Sendable {
    /// A beacon was seen for the first time, or again after its region was exited.
    case regionEntered(BeaconIdentity, cafeID: String?, at: Date)
    /// A beacon was silent for the configured time.
    case regionExited(BeaconIdentity, cafeID: String?, at: Date)
    /// The nearest café changed (nil: no café any more).
    case nearestCafeChanged(from: String?, to: String?, at: Date)
}
