import Foundation

// MARK: - NearestCafeSelector

/// Picks the nearest café with hysteresis, so a device between two cafés does not flap.
///
/// With no current café, the nearest one is taken once cafés have been heard for the acquisition time. A café whose beacons have all left their
/// regions is dropped at once. Otherwise a challenger takes over only after it has been nearer than
/// the current café by the margin (or the current café had no distance) continuously for the dwell.
public struct NearestCafeSelector: Sendable {
    public let hysteresis: CafeHysteresis
    /// Index (in the registry's `cafeIDs`) of the current nearest café.
    public internal(set) var current: Int?
    private var challenger: Int?
    private var challengerSince: Double = 0
    private var acquiringSince: Double?

    public init(hysteresis: CafeHysteresis, current: Int? = nil) {
        self.hysteresis = hysteresis
        self.current = current
    }

    /// Takes the cafés' current distances (infinity when unknown) and whether each is present (any
    /// beacon in region); returns whether the current café changed.
    public mutating func update(time: Double, distances: [Double], present: [Bool]) -> Bool {
        var best: Int?
        var bestDistance = Double.infinity
        for index in distances.indices where present[index] && distances[index] < bestDistance {
            best = index
            bestDistance = distances[index]
        }
        guard let current, present.indices.contains(current), present[current] else {
            resetChallenger()
            guard let best else {
                acquiringSince = nil
                defer { self.current = nil }
                return self.current != nil
            }
            if self.current != nil {
                self.current = nil
                acquiringSince = time
                return true
            }
            let since = acquiringSince ?? time
            acquiringSince = since
            guard time - since >= hysteresis.acquisition else { return false }
            self.current = best
            acquiringSince = nil
            return true
        }
        guard let candidate = best, candidate != current else {
            resetChallenger()
            return false
        }
        let currentDistance = distances[current]
        let nearerByMargin = !currentDistance.isFinite
            || bestDistance < currentDistance - hysteresis.margin(forCurrentDistance: currentDistance)
        guard nearerByMargin else {
            resetChallenger()
            return false
        }
        if challenger != candidate {
            challenger = candidate
            challengerSince = time
        }
        guard time - challengerSince >= hysteresis.dwell else { return false }
        self.current = candidate
        resetChallenger()
        return true
    }

    /// Ends the acquisition early: with no current café, takes the nearest present one now.
    public mutating func settle(distances: [Double], present: [Bool]) -> Bool {
        guard current == nil else { return false }
        var best: Int?
        var bestDistance = Double.infinity
        for index in distances.indices where present[index] && (best == nil || distances[index] < bestDistance) {
            best = index
            bestDistance = distances[index]
        }
        current = best
        acquiringSince = nil
        return best != nil
    }

    private mutating func resetChallenger() {
        challenger = nil
    }
}
