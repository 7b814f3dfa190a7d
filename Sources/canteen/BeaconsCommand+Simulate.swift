import ArgumentParser
import Beacons
import Foundation

extension BeaconsCommand {
    /// `canteen beacons simulate`: a generated walk written as a btsnoop capture.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a generated capture: a device walking from café A's beacon to café B's, or standing between them.",
            discussion: """
            Model: log-distance path loss (exponent 2, measured power -59 dBm at 1 m) plus Gaussian noise \
            (4 dB), beacons advertising every 100 ms + 0-10 ms. Beacons stand --spacing metres apart; \
            the device walks 1 m off their line at --speed m/s, or stands halfway.
            """)

        enum Scenario: String, ExpressibleByArgument, CaseIterable {
            case walk
            case stand
        }

        @Option(name: .shortAndLong, help: "The btsnoop file to write.")
        var output: String

        @Option(help: "walk (A to B) or stand (halfway between).")
        var scenario: Scenario = .walk

        @Option(help: "Random seed: the same seed writes the same capture.")
        var seed: UInt64 = 1

        @Option(help: "Metres between the two cafés' beacons.")
        var spacing: Double = 20

        @Option(help: "Walking speed in m/s.")
        var speed: Double = 1.2

        @Option(help: "Seconds to stand (stand) or to linger at café B (walk).")
        var duration: Double = 20

        @Option(help: "btsnoop datalink: 1001, 1002 or 2001.")
        var datalink: UInt32 = 2001

        @Flag(help: "Write LE Extended Advertising Reports instead of legacy ones.")
        var extended = false

        @Option(help: "Also write the scenario's beacon registry (JSON) here, for `range --beacons`.")
        var beaconsOutput: String?

        func run() async throws {
            try await BeaconsConsole.run {
                guard let link = BTSnoopDatalink(rawValue: datalink) else {
                    throw BeaconsCommandFailure("--datalink must be 1001, 1002 or 2001")
                }
                var trace = switch scenario {
                case .walk: TraceScenario.walk(seed: seed, spacing: spacing, speed: speed, linger: duration)
                case .stand: TraceScenario.standAtMidpoint(seed: seed, spacing: spacing, duration: duration)
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
                if scenario == .walk {
                    BeaconsConsole.warn("wrote \(output): midpoint passed at \(String(format: "%.1f", trace.midpointTime)) s")
                } else {
                    BeaconsConsole.warn("wrote \(output)")
                }
            }
        }
    }
}
