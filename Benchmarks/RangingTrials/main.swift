import Beacons
import Foundation

// ranging-trials: issue 14's ranging targets over many seeds of generated indoor radio, as the
// Markdown tables of docs/ranging.md.
//
//   swift run ranging-trials [--seeds N] [--first S] [--radio indoor|gaussian] [--summary-only]
//
// Each seed draws one trace per scenario (standing 6 m from café A, standing at the midpoint, the
// walk from A to B); the engine runs with its default configuration.

// MARK: - Arguments

var seedCount = 100
var firstSeed: UInt64 = 1
var radio = RadioModel.indoor
var radioName = "indoor"
var summaryOnly = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seeds": seedCount = arguments.next().flatMap { Int($0) } ?? seedCount
    case "--first": firstSeed = arguments.next().flatMap { UInt64($0) } ?? firstSeed
    case "--radio":
        radioName = arguments.next() ?? radioName
        radio = radioName == "gaussian" ? .gaussian : .indoor
    case "--summary-only": summaryOnly = true
    default:
        FileHandle.standardError.write(Data("usage: ranging-trials [--seeds N] [--first S] [--radio indoor|gaussian] [--summary-only]\n".utf8))
        exit(2)
    }
}

// MARK: - Trials

let seeds = (0..<UInt64(max(1, seedCount))).map { firstSeed + $0 }
var trials: [RangingTrial.Kind: [RangingTrial]] = [:]
for kind in RangingTrial.Kind.allCases {
    trials[kind] = seeds.map { RangingTrial(kind, seed: $0, radio: radio) }
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

print("Radio: \(radioName); seeds \(seeds.first ?? 0)–\(seeds.last ?? 0); engine: default `RangingConfiguration`.")
print()
print("| scenario | target | met | switches after the first decision (max · mean) | figure (min · median · max) | first decision, s after the first sighting (max) |")
print("|---|---|---|---|---|---|")
for kind in RangingTrial.Kind.allCases {
    let list = trials[kind] ?? []
    let met = list.filter(\.met).count
    let switches = list.map { Double($0.switches.count) }
    let mean = switches.reduce(0, +) / Double(max(1, switches.count))
    let (target, figures): (String, [Double]) = switch kind {
    case .nearA: ("on A within 30 s, no switch away after", list.compactMap(\.settledOnATime))
    case .midpoint: ("at most 2 switches in 10 min", switches)
    case .walk: ("one switch, before reaching B (10 m past the midpoint)", list.compactMap(\.switchMetresPastMidpoint))
    }
    let figureName = switch kind {
    case .nearA: "on A for good at (s)"
    case .midpoint: "switches"
    case .walk: "switch, m past the midpoint"
    }
    let firstDelays = list.compactMap(\.firstDecisionDelay)
    print("| \(kind.rawValue) | \(target) | \(met)/\(list.count) | \(Int(switches.max() ?? 0)) · \(format(mean, 2)) | "
        + "\(figureName): \(format(percentile(figures, 0))) · \(format(percentile(figures, 0.5))) · \(format(percentile(figures, 1))) | "
        + "\(format(firstDelays.max(), 2)) |")
}
let allMet = seeds.indices.filter { index in RangingTrial.Kind.allCases.allSatisfy { trials[$0]?[index].met == true } }.count
print()
print("Seeds meeting every target in all three scenarios: **\(allMet)/\(seeds.count)**.")

// MARK: - Per seed

if !summaryOnly {
    print()
    print("| seed | exponents A · B | near-a: switches · on A at (s) | midpoint: switches | walk: switch at (s) · m past the midpoint | first decision (s): near-a · midpoint · walk | all met |")
    print("|---:|---|---|---|---|---|---|")
    for (index, seed) in seeds.enumerated() {
        guard let near = trials[.nearA]?[index], let middle = trials[.midpoint]?[index], let walk = trials[.walk]?[index] else { continue }
        let exponents = near.pathLossExponents.map { String(format: "%.2f", $0) }.joined(separator: " · ")
        let walkSwitch = walk.switches.map { String(format: "%.1f", $0.time) }.joined(separator: ", ")
        let allMet = near.met && middle.met && walk.met
        let mark = { (trial: RangingTrial) in trial.met ? "" : " ✗" }
        print("| \(seed) | \(exponents) | \(near.switches.count) · \(format(near.settledOnATime))\(mark(near)) | "
            + "\(middle.switches.count)\(mark(middle)) | \(walkSwitch.isEmpty ? "none" : walkSwitch) · \(format(walk.switchMetresPastMidpoint))\(mark(walk)) | "
            + "\(format(near.firstDecisionDelay, 2)) · \(format(middle.firstDecisionDelay, 2)) · \(format(walk.firstDecisionDelay, 2)) | "
            + "\(allMet ? "yes" : "**no**") |")
    }
}
