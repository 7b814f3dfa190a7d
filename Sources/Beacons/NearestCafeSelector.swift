import Foundation

// MARK: - NearestCafeSelector

/// Picks the nearest café from each café's level (its strongest beacon's smoothed RSSI − measured
/// power, in dB), so that a device between two cafés does not flap and one walking from one to the
/// other switches once, in time.
///
/// - The first café is taken once cafés have been heard for the acquisition time, and only from a
///   café heard at least twice (never from one packet).
/// - Fast path: another café takes over when it leads the current one by the margin (plus the
///   reluctance) continuously for the dwell and on `dwellPackets` of its packets (two while
///   leaving the current café: never on one packet). While the device is leaving the current café (its
///   level has fallen the departure drop below its own average since it was chosen) the smaller
///   departure margin is enough: a device walking from one café to the next switches early, one
///   standing still needs a clear lead.
/// - Slow path: another café also takes over when its lead, averaged since the last change with the
///   slow time constant, stays above the slow margin (plus the reluctance) for the slow dwell: this
///   corrects a switch that standing still does not bear out. The slow margin is larger while the
///   average is young (it shrinks as 1/√time, as its noise does). Right after the first decision
///   (the probation) the probation margin and dwell apply instead: a first guess made in the first
///   seconds is corrected quickly.
/// - Reluctance: each change adds to both margins, fading away with its time constant; a device
///   that keeps switching is standing between cafés and needs more evidence.
/// - The current café's level counts at its highest over the last `currentHold` seconds: a dip
///   of the café one is at (a body between phone and beacon, a fade) does not let another win.
/// - A café whose beacons have all left their regions is dropped at once, and acquisition starts
///   again.
public struct NearestCafeSelector: Sendable {
    /// Why the current café last changed.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// The first café, after the acquisition time.
        case acquired
        /// Another café led by the margin (fast path).
        case clearLead = "clear_lead"
        /// Another café led by the departure margin while the device was leaving the current one.
        case leaving
        /// Another café led on average (slow path).
        case averagedLead = "averaged_lead"
        /// Another café led on average right after the first decision (a first guess corrected).
        case firstGuessCorrected = "first_guess_corrected"
        /// The current café's beacons all left their regions.
        case cafeLost = "cafe_lost"
        /// `settle()` took the strongest café without waiting.
        case settled
    }

    public let hysteresis: CafeHysteresis
    /// Index (in the registry's `cafeIDs`) of the current nearest café.
    public internal(set) var current: Int?
    /// The margin (dB) added by recent changes, now.
    public private(set) var reluctance: Double = 0
    /// Why the current café last changed; nil before any change.
    public private(set) var lastReason: Reason?
    private var lastTime: Double?
    private var acquiringSince: Double?
    private var challenger: Int?
    private var challengerSince: Double = 0
    /// The challenger's packets while it has led (fast path).
    private var challengerPackets = 0
    private var lastPackets: [Int] = []
    /// Per café: its lead over the current café averaged since `slowSince`, and since when it has
    /// been above the slow margin.
    private var slowLeads: [Double?] = []
    private var slowAbove: [Double?] = []
    private var slowSince: Double?
    /// Per café: its level's highest value over the last `currentHold` seconds, and its level at
    /// the last update (a window only takes a level that changed).
    private var heldLevels: [MaximumWindow] = []
    private var lastLevels: [Double] = []
    /// The current café's level averaged since it was chosen (departure baseline).
    private var baseline: Double?
    /// When the first café was chosen, while no change has followed it (the probation).
    private var probationSince: Double?

    public init(hysteresis: CafeHysteresis, current: Int? = nil) {
        self.hysteresis = hysteresis
        self.current = current
    }

    /// Takes each café's level (−infinity when unknown), whether it is present (any beacon in
    /// region) and how many packets its beacons gave; returns whether the current café changed.
    public mutating func update(time: Double, levels: [Double], present: [Bool], packets: [Int]) -> Bool {
        let elapsed = lastTime.map { max(0, time - $0) } ?? 0
        lastTime = time
        if reluctance > 0, hysteresis.reluctanceDecay > 0 {
            reluctance *= 1 - smoothingWeight(elapsed, hysteresis.reluctanceDecay)
        }
        if slowLeads.count != levels.count {
            slowLeads = Array(repeating: nil, count: levels.count)
            slowAbove = Array(repeating: nil, count: levels.count)
            heldLevels = Array(repeating: MaximumWindow(), count: levels.count)
            lastLevels = Array(repeating: .nan, count: levels.count)
        }
        for index in levels.indices where levels[index].isFinite && levels[index] != lastLevels[index] {
            heldLevels[index].add(levels[index], at: time, keeping: hysteresis.currentHold)
            lastLevels[index] = levels[index]
        }
        // Copied element by element (holding the caller's array would make it copy on its next write),
        // once this update is done: until then `lastPackets` holds the previous counts.
        if lastPackets.count != packets.count { lastPackets = Array(repeating: 0, count: packets.count) }
        defer {
            for index in packets.indices { lastPackets[index] = packets[index] }
        }
        guard let current, present.indices.contains(current), present[current] else {
            return acquire(time: time, levels: levels, present: present, packets: packets)
        }
        // The strongest other café.
        var best: Int?
        for index in levels.indices where index != current && present[index] && levels[index].isFinite {
            if best.map({ levels[index] > levels[$0] }) ?? true { best = index }
        }
        // The current café's dips shorter than the hold do not count (a body, a fade).
        var currentLevel = levels[current]
        if currentLevel.isFinite {
            heldLevels[current].expire(at: time, keeping: hysteresis.currentHold)
            currentLevel = max(currentLevel, heldLevels[current].maximum ?? currentLevel)
        }
        if slowSince == nil { slowSince = time }
        let slowAge = time - (slowSince ?? time)

        // Slow path: every other café's lead, averaged since the last change.
        let slowTimeWeight = smoothingWeight(elapsed, hysteresis.slowTimeConstant)
        for index in levels.indices where index != current && levels[index].isFinite {
            let lead = currentLevel.isFinite ? levels[index] - currentLevel : hysteresis.slowMargin * 4
            guard let average = slowLeads[index] else {
                slowLeads[index] = lead
                continue
            }
            let weight = max(slowTimeWeight, elapsed / max(slowAge, elapsed, 1e-9))
            slowLeads[index] = average + weight * (lead - average)
        }
        if let best, present[best], let average = slowLeads[best], slowAge >= 2 {
            let youth = max(1, hysteresis.slowTimeConstant / max(slowAge, 1)).squareRoot()
            var margin = hysteresis.slowMargin * youth + reluctance
            var dwell = hysteresis.slowDwell
            var reason = Reason.averagedLead
            if let probationSince, time - probationSince < hysteresis.probation, slowAge >= hysteresis.probationMinimum
            {
                margin = hysteresis.probationMargin
                dwell = hysteresis.probationDwell
                reason = .firstGuessCorrected
            }
            if average > margin {
                let since = slowAbove[best] ?? time
                slowAbove[best] = since
                if time - since >= dwell {
                    change(to: best, at: time, reason: reason)
                    return true
                }
            } else {
                slowAbove[best] = nil
            }
        }

        // Fast path: a clear lead (smaller while leaving the current café), held for the dwell.
        var margin = hysteresis.margin
        var departing = false
        if currentLevel.isFinite {
            if let average = baseline {
                let timeWeight = smoothingWeight(elapsed, hysteresis.departureTimeConstant)
                baseline = average + timeWeight * (currentLevel - average)
            } else {
                baseline = currentLevel
            }
            if let baseline, baseline - currentLevel >= hysteresis.departureDrop {
                margin = hysteresis.departureMargin
                departing = true
            }
        }
        guard let best else {
            challenger = nil
            return false
        }
        let lead = currentLevel.isFinite ? levels[best] - currentLevel : .infinity
        guard lead > margin + reluctance else {
            challenger = nil
            return false
        }
        if challenger != best {
            challenger = best
            challengerSince = time
            challengerPackets = 0
        }
        challengerPackets += max(0, packets[best] - lastPackets[best])
        let packetsNeeded = departing ? min(2, hysteresis.dwellPackets) : hysteresis.dwellPackets
        guard time - challengerSince >= hysteresis.dwell, challengerPackets >= packetsNeeded else { return false }
        change(to: best, at: time, reason: departing ? .leaving : .clearLead)
        return true
    }

    /// Ends the acquisition early: with no current café, takes the strongest present one now.
    public mutating func settle(levels: [Double], present: [Bool]) -> Bool {
        guard current == nil else { return false }
        var best: Int?
        for index in levels.indices where present[index] {
            if best.map({ levels[index] > levels[$0] }) ?? true { best = index }
        }
        guard let best else { return false }
        current = best
        acquiringSince = nil
        resetEvidence(at: lastTime)
        probationSince = lastTime
        lastReason = .settled
        return true
    }

    // MARK: - Changes

    /// With no current café (or one that left): waits for the acquisition time, then takes the
    /// strongest café heard at least `acquisitionPackets` times.
    private mutating func acquire(time: Double, levels: [Double], present: [Bool], packets: [Int]) -> Bool {
        var best: Int?
        for index in levels.indices where present[index] && levels[index].isFinite {
            if best.map({ levels[index] > levels[$0] }) ?? true { best = index }
        }
        if current != nil {
            // The current café left: no café until a new one is acquired.
            current = nil
            acquiringSince = best == nil ? nil : time
            resetEvidence(at: time)
            lastReason = .cafeLost
            return true
        }
        guard let best else {
            acquiringSince = nil
            return false
        }
        let since = acquiringSince ?? time
        acquiringSince = since
        guard time - since >= hysteresis.acquisition, packets[best] >= hysteresis.acquisitionPackets else {
            return false
        }
        current = best
        acquiringSince = nil
        resetEvidence(at: time)
        probationSince = time
        lastReason = .acquired
        return true
    }

    private mutating func change(to cafe: Int, at time: Double, reason: Reason) {
        current = cafe
        reluctance += hysteresis.reluctance
        lastReason = reason
        resetEvidence(at: time)
    }

    private mutating func resetEvidence(at time: Double?) {
        challenger = nil
        baseline = nil
        probationSince = nil
        slowSince = time
        for index in slowLeads.indices {
            slowLeads[index] = nil
            slowAbove[index] = nil
        }
    }
}
