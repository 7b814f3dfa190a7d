import Foundation
import Testing

@testable import Beacons

@Suite("the indoor radio of the trace generator")
struct RadioModelTests {
    /// A device standing `along` metres from café A's beacon (1 m off the line) for `seconds`,
    /// under `radio`; the sightings of each beacon, as (seconds, RSSI − path loss − measured power).
    static func residuals(_ radio: RadioModel, seed: UInt64 = 5, along: Double = 6, seconds: Double = 120)
        -> (scenario: TraceScenario, residuals: [[(time: Double, value: Double)]])
    {
        let scenario = TraceScenario.stand(seed: seed, at: along, duration: seconds, radio: radio)
        let generator = scenario.generator
        let exponents = generator.pathLossExponents()
        let position = generator.path.position(at: 0)
        var residuals: [[(time: Double, value: Double)]] = Array(repeating: [], count: generator.beacons.count)
        for sighting in generator.sightings() {
            guard let index = generator.beacons.firstIndex(where: { $0.beacon.identity == sighting.identity }),
                let rssi = sighting.rssi
            else { continue }
            let placed = generator.beacons[index]
            let distance =
                ((position.x - placed.position.x) * (position.x - placed.position.x)
                + (position.y - placed.position.y) * (position.y - placed.position.y)).squareRoot()
            let mean = Double(placed.beacon.measuredPower) - 10 * exponents[index] * log10(distance)
            residuals[index].append((sighting.time.timeIntervalSince(generator.start), Double(rssi) - mean))
        }
        return (scenario, residuals)
    }

    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[Int(Double(sorted.count - 1) * fraction)]
    }

    @Test("20–30 % of advertisements are lost, each beacon at its own rate")
    func packetLoss() {
        let radio = RadioModel(packetLoss: 0.2...0.3)
        let (_, residuals) = Self.residuals(radio, seconds: 200)
        let sent = 200 / 0.105  // one advertisement every 100 ms + 0–10 ms
        for beacon in residuals {
            let lost = 1 - Double(beacon.count) / sent
            #expect(lost > 0.17 && lost < 0.33, "lost \(lost)")
        }
    }

    @Test("Rayleigh fading: median at the mean path loss, deep drops far below it, few peaks above")
    func rayleigh() {
        let (_, residuals) = Self.residuals(RadioModel(fading: .rayleigh), seconds: 200)
        let values = residuals.flatMap { $0.map(\.value) }
        #expect(abs(Self.quantile(values, 0.5)) <= 1)
        #expect(Self.quantile(values, 0.05) < -10)  // |h|² below 0.07 of its median, 5 % of the time
        #expect(Self.quantile(values, 0.95) < 7.5)  // but rarely more than 4× above it
        #expect(
            Self.quantile(values, 0.5) - Self.quantile(values, 0.05) > 1.5
                * (Self.quantile(values, 0.95) - Self.quantile(values, 0.5)))
    }

    @Test("shadowing has the standard deviation asked for and is correlated over seconds, not minutes")
    func shadowing() {
        let (_, residuals) = Self.residuals(RadioModel(shadowingSigma: 4, shadowingTimeConstant: 2), seconds: 600)
        for beacon in residuals {
            let values = beacon.map(\.value)
            let mean = values.reduce(0, +) / Double(values.count)
            let deviation = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            #expect(deviation > 3.3 && deviation < 4.7, "σ \(deviation)")
            // Correlation of samples about 0.5 s apart (e^(−0.25) ≈ 0.78) and 10 s apart (≈ 0).
            func correlation(lag: Int) -> Double {
                var sum = 0.0
                for index in 0..<(values.count - lag) { sum += (values[index] - mean) * (values[index + lag] - mean) }
                return sum / Double(values.count - lag) / (deviation * deviation)
            }
            #expect(correlation(lag: 5) > 0.6)
            #expect(abs(correlation(lag: 95)) < 0.25)
        }
    }

    @Test("a body blocks one beacon by 10 dB for 1.5–3 s, about every 30 s, rarely both at once")
    func bodyBlocking() {
        let radio = RadioModel(bodyLoss: 10, bodyInterval: 30, bodyDuration: 1.5...3)
        let (_, residuals) = Self.residuals(radio, seed: 9, seconds: 1_200)
        var blockings = 0
        for beacon in residuals {
            #expect(beacon.allSatisfy { abs($0.value) <= 0.51 || abs($0.value + 10) <= 0.51 })
            // Runs of blocked packets: each lasts 1.5–3 s (a run may merge two blockings, rarely).
            var runStart: Double?
            var last = 0.0
            for sample in beacon {
                let blocked = sample.value < -5
                if blocked, runStart == nil { runStart = sample.time }
                if !blocked, let start = runStart {
                    #expect(last - start < 6.1, "blocked from \(start) to \(last)")
                    if last - start > 1.2 { blockings += 1 }
                    runStart = nil
                }
                last = sample.time
            }
        }
        // 1,200 s at one blocking every 30 s: about 40 in all.
        #expect(blockings > 25 && blockings < 60, "\(blockings) blockings")
        let blockedA = Set(residuals[0].filter { $0.value < -5 }.map { Int($0.time) })
        let blockedBoth = residuals[1].filter { $0.value < -5 && blockedA.contains(Int($0.time)) }.count
        #expect(blockedBoth < residuals[1].count / 100)
    }

    @Test("path-loss exponents come from the place's range, each beacon within the spread")
    func exponents() {
        for seed in 1...30 as ClosedRange<UInt64> {
            let exponents = TraceScenario.walk(seed: seed, radio: .indoor).generator.pathLossExponents()
            #expect(exponents.allSatisfy { (1.8...2.8).contains($0) })
            #expect(abs(exponents[0] - exponents[1]) <= 0.4 + 1e-9)
        }
        #expect(TraceScenario.walk(seed: 1).generator.pathLossExponents() == [2, 2])
    }

    @Test("beacons transmit at different powers, and the registry holds each one's measured power")
    func transmitPowers() {
        var powers: Set<Int8> = []
        for seed in 1...10 as ClosedRange<UInt64> {
            let scenario = TraceScenario.walk(seed: seed, radio: .indoor)
            for placed in scenario.generator.beacons {
                #expect(scenario.registry[placed.beacon.identity]?.measuredPower == Int(placed.beacon.measuredPower))
                #expect((-65 ... -53).contains(placed.beacon.measuredPower))
                powers.insert(placed.beacon.measuredPower)
            }
        }
        #expect(powers.count > 5)
    }

    @Test("the same seed writes the same trace; another seed another")
    func repeatable() {
        let first = TraceScenario.walk(seed: 4, radio: .indoor).generator.sightings()
        #expect(first == TraceScenario.walk(seed: 4, radio: .indoor).generator.sightings())
        #expect(first != TraceScenario.walk(seed: 5, radio: .indoor).generator.sightings())
    }
}
