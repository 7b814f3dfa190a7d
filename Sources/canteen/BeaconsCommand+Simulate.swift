import ArgumentParser
import Beacons
import Foundation

extension BeaconsCommand {
    /// `canteen beacons simulate`: a generated walk or stand written as a btsnoop capture.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Write a generated capture: a device walking from café A's beacon to café B's, or standing between them.",
            discussion: """
                Beacons stand --spacing metres apart and advertise every 100 ms (+ 0-10 ms); the device \
                walks 1 m off their line at --speed m/s, or stands --at metres from café A's beacon. \
                The radio is a building's (--radio indoor, the default): log-distance path loss with an \
                exponent per place and beacon, slow shadowing, Rayleigh fading, a body blocking the line \
                now and then, lost advertisements and beacons of different transmit power (the registry \
                written by --beacons-output holds each one's measured power). Each effect has a flag below; \
                --radio gaussian is the plain model (exponent 2, 4 dB white noise, nothing else), and the \
                flags given change either preset.
                """)

        enum Scenario: String, ExpressibleByArgument, CaseIterable {
            case walk
            case stand
        }

        enum Preset: String, ExpressibleByArgument, CaseIterable {
            case indoor
            case gaussian

            var model: RadioModel { self == .indoor ? .indoor : .gaussian }
        }

        @Option(name: .shortAndLong, help: "The btsnoop file to write.")
        var output: String

        @Option(help: "walk (A to B) or stand (still, --at metres from A).")
        var scenario: Scenario = .walk

        @Option(help: "Random seed: the same seed writes the same capture.")
        var seed: UInt64 = 1

        @Option(help: "Metres between the two cafés' beacons.")
        var spacing: Double = 20

        @Option(help: "Walking speed in m/s.")
        var speed: Double = 1.2

        @Option(help: "Seconds to stand (stand) or to linger at café B (walk).")
        var duration: Double = 20

        @Option(help: "Where to stand: metres from café A's beacon along the line (default: halfway).")
        var at: Double?

        @Option(help: "btsnoop datalink: 1001, 1002 or 2001.")
        var datalink: UInt32 = 2001

        @Flag(help: "Write LE Extended Advertising Reports instead of legacy ones.")
        var extended = false

        @Option(help: "Also write the scenario's beacon registry (JSON) here, for `range --beacons`.")
        var beaconsOutput: String?

        // MARK: - Radio

        @Option(help: "The radio to start from: indoor or gaussian.")
        var radio: Preset = .indoor

        @Option(
            help: ArgumentHelp(
                "Path-loss exponent of the place, a value or a range drawn from (indoor: 1.8-2.8).",
                valueName: "N|MIN-MAX"))
        var pathLossExponent: NumberRange?

        @Option(help: "How far each beacon's exponent may differ from the place's, ± (indoor: 0.2).")
        var exponentSpread: Double?

        @Option(help: "Slow shadowing's standard deviation in dB, 0 for none (indoor: 4).")
        var shadowing: Double?

        @Option(help: "Shadowing's time constant in seconds (indoor: 2).")
        var shadowingTime: Double?

        @Option(help: "Fast fading per packet: rayleigh or none (indoor: rayleigh).")
        var fading: RadioModel.Fading?

        @Option(help: "dB lost while a body blocks the line, 0 for never (indoor: 10).")
        var bodyLoss: Double?

        @Option(help: "Mean seconds between two blockings of one beacon (indoor: 30).")
        var bodyEvery: Double?

        @Option(
            help: ArgumentHelp(
                "Seconds one blocking lasts, a value or a range (indoor: 1.5-3).", valueName: "S|MIN-MAX"))
        var bodyDuration: NumberRange?

        @Option(
            help: ArgumentHelp(
                "Share of advertisements lost, a value or a range drawn per beacon (indoor: 0.2-0.3).",
                valueName: "P|MIN-MAX"))
        var packetLoss: NumberRange?

        @Option(help: "Beacons' measured power is drawn from -59 dBm ± this many dB (indoor: 6).")
        var powerSpread: Double?

        @Option(help: "White Gaussian noise per packet in dB (indoor: 0; gaussian: 4).")
        var noise: Double?

        func validate() throws {
            guard BTSnoopDatalink(rawValue: datalink) != nil else {
                throw ValidationError("--datalink must be 1001, 1002 or 2001")
            }
            guard spacing > 0, speed > 0, duration >= 0 else {
                throw ValidationError("--spacing and --speed must be positive and --duration not negative")
            }
            let model = radioModel
            let checks: [(Bool, String)] = [
                (model.pathLossExponent.lowerBound > 0, "--path-loss-exponent must be above 0"),
                (model.exponentSpread >= 0, "--exponent-spread must not be negative"),
                (model.shadowingSigma >= 0, "--shadowing must not be negative"),
                (model.shadowingTimeConstant >= 0, "--shadowing-time must not be negative"),
                (model.bodyLoss >= 0, "--body-loss must not be negative"),
                (model.bodyInterval > 0, "--body-every must be above 0"),
                (model.bodyDuration.lowerBound >= 0, "--body-duration must not be negative"),
                (
                    model.packetLoss.lowerBound >= 0 && model.packetLoss.upperBound < 1,
                    "--packet-loss must be at least 0 and below 1"
                ),
                (model.powerSpread >= 0, "--power-spread must not be negative"),
                (model.noiseSigma >= 0, "--noise must not be negative"),
            ]
            if let failed = checks.first(where: { !$0.0 }) {
                throw ValidationError(failed.1)
            }
        }

        /// The preset with every flag given applied.
        var radioModel: RadioModel {
            var model = radio.model
            if let pathLossExponent { model.pathLossExponent = pathLossExponent.range }
            if let exponentSpread { model.exponentSpread = exponentSpread }
            if let shadowing { model.shadowingSigma = shadowing }
            if let shadowingTime { model.shadowingTimeConstant = shadowingTime }
            if let fading { model.fading = fading }
            if let bodyLoss { model.bodyLoss = bodyLoss }
            if let bodyEvery { model.bodyInterval = bodyEvery }
            if let bodyDuration { model.bodyDuration = bodyDuration.range }
            if let packetLoss { model.packetLoss = packetLoss.range }
            if let powerSpread { model.powerSpread = powerSpread }
            if let noise { model.noiseSigma = noise }
            return model
        }

        func run() async throws {
            try await BeaconsConsole.run {
                guard let link = BTSnoopDatalink(rawValue: datalink) else {
                    throw BeaconsCommandFailure("--datalink must be 1001, 1002 or 2001")
                }
                let model = radioModel
                var trace =
                    switch scenario {
                    case .walk:
                        TraceScenario.walk(seed: seed, spacing: spacing, speed: speed, linger: duration, radio: model)
                    case .stand:
                        TraceScenario.stand(
                            seed: seed, at: at ?? spacing / 2, spacing: spacing, duration: duration, radio: model)
                    }
                trace.generator.extendedReports = extended
                let bytes = trace.generator.capture(datalink: link)
                do {
                    try Data(bytes).write(to: URL(fileURLWithPath: output))
                    if let beaconsOutput {
                        let list = trace.registry.beacons.values.sorted { $0.identity < $1.identity }
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                        try encoder.encode(list).write(to: URL(fileURLWithPath: beaconsOutput))
                    }
                } catch {
                    throw BeaconsCommandFailure("cannot write: \(error.localizedDescription)")
                }
                let exponents = trace.generator.pathLossExponents().map { String(format: "%.2f", $0) }
                    .joined(separator: ", ")
                let powers = trace.generator.beacons.map { String($0.beacon.measuredPower) }.joined(separator: ", ")
                var note = "wrote \(output): path-loss exponents \(exponents); measured power \(powers) dBm"
                if scenario == .walk {
                    note += String(
                        format: "; midpoint passed at %.1f s, café B reached at %.1f s",
                        trace.midpointTime, trace.arrivalTime)
                }
                BeaconsConsole.warn(note)
            }
        }
    }
}

// MARK: - NumberRange

/// A command-line value that is one number (`2`) or a range (`1.8-2.8`).
struct NumberRange: ExpressibleByArgument {
    var range: ClosedRange<Double>

    init?(argument: String) {
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let low = Double(parts[0]), let high = Double(parts[parts.count - 1]),
            low.isFinite, high.isFinite, low <= high
        else { return nil }
        range = low...high
    }
}

extension RadioModel.Fading: ExpressibleByArgument {}
