import Beacons
import Foundation

// ranging-trials: issue 14's ranging targets over many seeds of generated indoor radio, as the
// Markdown tables of docs/ranging.md.
//
//   swift run ranging-trials [--seeds N] [--first S] [--radio indoor|gaussian] [--summary-only]
//                            [--set KNOB=VALUE]...
//
// Each seed draws one trace per scenario (standing 6 m from café A, standing at the midpoint, the
// walk from A to B); the engine runs with its default configuration, or with the `CafeHysteresis`
// knobs given by --set (e.g. --set margin=11 --set departureDrop=9), to try other values.

// MARK: - Arguments

var seedCount = 100
var firstSeed: UInt64 = 1
var radio = RadioModel.indoor
var radioName = "indoor"
var summaryOnly = false
var configuration = RangingConfiguration()
var changedKnobs: [String] = []
let knobs: [String: WritableKeyPath<CafeHysteresis, Double>] = [
    "margin": \.margin, "dwell": \.dwell, "currentHold": \.currentHold, "departureDrop": \.departureDrop,
    "departureTimeConstant": \.departureTimeConstant, "departureMargin": \.departureMargin,
    "slowTimeConstant": \.slowTimeConstant, "slowMargin": \.slowMargin, "slowDwell": \.slowDwell,
    "probation": \.probation, "probationMargin": \.probationMargin, "probationDwell": \.probationDwell,
    "probationMinimum": \.probationMinimum, "reluctance": \.reluctance, "reluctanceDecay": \.reluctanceDecay,
    "acquisition": \.acquisition,
]
let usage =
    "usage: ranging-trials [--seeds N] [--first S] [--radio indoor|gaussian] [--summary-only] [--set KNOB=VALUE]...\n"
    + "knobs: \(knobs.keys.sorted().joined(separator: ", ")), dwellPackets, acquisitionPackets\n"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seeds": seedCount = arguments.next().flatMap { Int($0) } ?? seedCount
    case "--first": firstSeed = arguments.next().flatMap { UInt64($0) } ?? firstSeed
    case "--radio":
        radioName = arguments.next() ?? radioName
        radio = radioName == "gaussian" ? .gaussian : .indoor
    case "--summary-only": summaryOnly = true
    case "--set":
        let parts = (arguments.next() ?? "").split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let value = Double(parts[1]), value.isFinite else {
            FileHandle.standardError.write(Data("ranging-trials: --set needs KNOB=NUMBER\n\(usage)".utf8))
            exit(2)
        }
        if let path = knobs[parts[0]] {
            configuration.hysteresis[keyPath: path] = value
        } else if parts[0] == "dwellPackets" || parts[0] == "acquisitionPackets", let count = Int(exactly: value) {
            if parts[0] == "dwellPackets" {
                configuration.hysteresis.dwellPackets = count
            } else {
                configuration.hysteresis.acquisitionPackets = count
            }
        } else {
            FileHandle.standardError.write(
                Data("ranging-trials: unknown knob or value in --set \(parts[0])=\(parts[1])\n\(usage)".utf8))
            exit(2)
        }
        changedKnobs.append("\(parts[0]) = \(parts[1])")
    default:
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
}

// MARK: - Trials

let seeds = (0..<UInt64(max(1, seedCount))).map { firstSeed + $0 }
var trials: [RangingTrial.Kind: [RangingTrial]] = [:]
for kind in RangingTrial.Kind.allCases {
    trials[kind] = seeds.map { RangingTrial(kind, seed: $0, radio: radio, configuration: configuration) }
}

func format(_ value: Double?, _ digits: Int = 1) -> String {
    value.map { String(format: "%.\(digits)f", $0) } ?? "–"
}

func percentile(_ values: [Double], _ fraction: Double) -> Double? {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return nil }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

// MARK: - Summary

let engineName =
    changedKnobs.isEmpty
    ? "default `RangingConfiguration`." : "`RangingConfiguration` with " + changedKnobs.joined(separator: ", ") + "."
print("Radio: \(radioName); seeds \(seeds.first ?? 0)–\(seeds.last ?? 0); engine: \(engineName)")
print()
print(
    "| scenario | target | met | switches after the first decision (max · mean) | figure (min · median · max) | first decision, s after the first sighting (max) |"
)
print("|---|---|---|---|---|---|")
for kind in RangingTrial.Kind.allCases {
    let list = trials[kind] ?? []
    let met = list.filter(\.met).count
    let switches = list.map { Double($0.switches.count) }
    let mean = switches.reduce(0, +) / Double(max(1, switches.count))
    let (target, figures): (String, [Double]) =
        switch kind {
        case .nearA: ("on A within 30 s, no switch away after", list.compactMap(\.settledOnATime))
        case .midpoint: ("at most 2 switches in 10 min", switches)
        case .walk:
            ("one switch, before reaching B (10 m past the midpoint)", list.compactMap(\.switchMetresPastMidpoint))
        }
    let figureName =
        switch kind {
        case .nearA: "on A for good at (s)"
        case .midpoint: "switches"
        case .walk: "switch, m past the midpoint"
        }
    let firstDelays = list.compactMap(\.firstDecisionDelay)
    print(
        "| \(kind.rawValue) | \(target) | \(met)/\(list.count) | \(Int(switches.max() ?? 0)) · \(format(mean, 2)) | "
            + "\(figureName): \(format(percentile(figures, 0))) · \(format(percentile(figures, 0.5))) · \(format(percentile(figures, 1))) | "
            + "\(format(firstDelays.max(), 2)) |")
}
let allMet = seeds.indices.filter { index in RangingTrial.Kind.allCases.allSatisfy { trials[$0]?[index].met == true } }
    .count
print()
print("Seeds meeting every target in all three scenarios: **\(allMet)/\(seeds.count)**.")

// MARK: - Per seed

if !summaryOnly {
    print()
    print(
        "| seed | exponents A · B | near-a: switches · on A at (s) | midpoint: switches | walk: switch at (s) · m past the midpoint | first decision (s): near-a · midpoint · walk | all met |"
    )
    print("|---:|---|---|---|---|---|---|")
    for (index, seed) in seeds.enumerated() {
        guard let near = trials[.nearA]?[index], let middle = trials[.midpoint]?[index],
            let walk = trials[.walk]?[index]
        else { continue }
        let exponents = near.pathLossExponents.map { String(format: "%.2f", $0) }.joined(separator: " · ")
        let walkSwitch = walk.switches.map { String(format: "%.1f", $0.time) }.joined(separator: ", ")
        let allMet = near.met && middle.met && walk.met
        let mark = { (trial: RangingTrial) in trial.met ? "" : " ✗" }
        print(
            "| \(seed) | \(exponents) | \(near.switches.count) · \(format(near.settledOnATime))\(mark(near)) | "
                + "\(middle.switches.count)\(mark(middle)) | \(walkSwitch.isEmpty ? "none" : walkSwitch) · \(format(walk.switchMetresPastMidpoint))\(mark(walk)) | "
                + "\(format(near.firstDecisionDelay, 2)) · \(format(middle.firstDecisionDelay, 2)) · \(format(walk.firstDecisionDelay, 2)) | "
                + "\(allMet ? "yes" : "**no**") |")
    }
}
