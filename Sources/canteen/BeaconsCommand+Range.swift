import ArgumentParser
import Beacons
import CanteenCore
import Foundation

extension BeaconsCommand {
    /// `canteen beacons range FILE`: nearest-café decisions over a capture, with the registered
    /// beacons of `--data-dir` (or `--beacons FILE`).
    struct Range: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print nearest-café decisions and region enter/exit over a btsnoop capture.")

        @Argument(help: "A btsnoop capture.")
        var file: String

        @OptionGroup var registry: RegistryOption

        @Option(help: "Output format: jsonl or table.")
        var format: BeaconsOutputFormat = .table

        func run() async throws {
            try await BeaconsConsole.run {
                let registry = try await registry.load()
                let (sightings, summary) = try BeaconsConsole.readCapture(file).sightings()
                if let warning = summary.warning { BeaconsConsole.warn("warning: \(file): \(warning)") }
                let (events, engine) = RangingReplay.run(sightings: sightings, registry: registry)
                var output = BufferedOutput()
                for event in events {
                    output.line(Self.render(event, format: format))
                }
                if format == .table {
                    output.line("nearest café at the end: \(engine.nearestCafeID ?? "none")")
                }
                output.flush()
            }
        }

        static func render(_ event: RangingEvent, format: BeaconsOutputFormat) -> String {
            func json(_ text: String?) -> String { text.map { "\"\($0)\"" } ?? "null" }
            switch (event, format) {
            case let (.nearestCafeChanged(from, to, at), .jsonl):
                return "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"nearestCafe\", \"from\": \(json(from)), \"to\": \(json(to))}"
            case let (.regionEntered(beacon, cafe, at), .jsonl):
                return "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"enter\", \"beacon\": \"\(beacon)\", \"cafeId\": \(json(cafe))}"
            case let (.regionExited(beacon, cafe, at), .jsonl):
                return "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"exit\", \"beacon\": \"\(beacon)\", \"cafeId\": \(json(cafe))}"
            case let (.nearestCafeChanged(from, to, at), .table):
                return "\(RFC3339.utcMicroseconds(at))  nearest café  \(from ?? "none") -> \(to ?? "none")"
            case let (.regionEntered(beacon, cafe, at), .table):
                return "\(RFC3339.utcMicroseconds(at))  enter         \(beacon) (\(cafe ?? "unregistered"))"
            case let (.regionExited(beacon, cafe, at), .table):
                return "\(RFC3339.utcMicroseconds(at))  exit          \(beacon) (\(cafe ?? "unregistered"))"
            }
        }
    }
}
