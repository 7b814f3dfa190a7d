import ArgumentParser
import Beacons
import CanteenCore
import CanteenJSON
import Foundation

extension BeaconsCommand {
    /// `canteen beacons range FILE`: nearest-café decisions over a capture, with the registered
    /// beacons of `--data-dir` (or `--beacons FILE`).
    struct Range: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print nearest-café decisions and region enter/exit over a btsnoop capture.",
            discussion: """
                --plot OUT.svg also draws each beacon's packets and smoothed level (RSSI − measured power, \
                dB) over time, the nearest café as a band above them and each change of café as a dashed line \
                with its reason.
                """)

        @Argument(help: "A btsnoop capture.")
        var file: String

        @OptionGroup var registry: RegistryOption

        @Option(help: "Output format: jsonl or table.")
        var format: BeaconsOutputFormat = .table

        @Option(
            help: ArgumentHelp("Also draw the beacons' levels and the decisions as an SVG here.", valueName: "OUT.svg"))
        var plot: String?

        func run() async throws {
            try await BeaconsConsole.run {
                let registry = try await registry.load()
                let (sightings, summary) = try BeaconsConsole.readCapture(file).sightings()
                if let warning = summary.warning { BeaconsConsole.warn("warning: \(file): \(warning)") }
                var engine = RangingEngine(registry: registry)
                var drawing = plot.map { _ in
                    RangingPlot(title: "\(URL(fileURLWithPath: file).lastPathComponent): \(sightings.count) sightings")
                }
                var output = BufferedOutput()
                var changes = 0
                for sighting in sightings {
                    var events: [RangingEvent] = []
                    engine.process(sighting) { events.append($0) }
                    for event in events {
                        if event.isCafeChange { changes += 1 }
                        output.line(
                            Self.render(
                                event, reason: event.isCafeChange ? engine.lastChangeReason : nil, format: format))
                    }
                    drawing?.add(sighting, engine: engine, events: events)
                }
                if format == .table {
                    output.line("nearest café at the end: \(engine.nearestCafeID ?? "none")")
                }
                output.flush()
                if let plot, var drawing {
                    drawing.title += ", \(changes) café decisions"
                    do {
                        try Data(drawing.svg().utf8).write(to: URL(fileURLWithPath: plot))
                    } catch {
                        throw BeaconsCommandFailure("cannot write \(plot): \(error.localizedDescription)")
                    }
                }
            }
        }

        static func render(
            _ event: RangingEvent, reason: NearestCafeSelector.Reason? = nil,
            format: BeaconsOutputFormat
        ) -> String {
            func json(_ text: String?) -> String { text.map { "\"\($0)\"" } ?? "null" }
            switch (event, format) {
            case let (.nearestCafeChanged(from, to, at), .jsonl):
                return
                    "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"nearestCafe\", \"from\": \(json(from)), "
                    + "\"to\": \(json(to)), \"reason\": \(json(reason?.rawValue))}"
            case let (.regionEntered(beacon, cafe, at), .jsonl):
                return
                    "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"enter\", \"beacon\": \"\(beacon)\", \"cafeId\": \(json(cafe))}"
            case let (.regionExited(beacon, cafe, at), .jsonl):
                return
                    "{\"time\": \"\(RFC3339.utcMicroseconds(at))\", \"event\": \"exit\", \"beacon\": \"\(beacon)\", \"cafeId\": \(json(cafe))}"
            case let (.nearestCafeChanged(from, to, at), .table):
                let why = RangingPlot.phrase(reason)
                return
                    "\(RFC3339.utcMicroseconds(at))  nearest café  \(from ?? "none") -> \(to ?? "none")\(why.isEmpty ? "" : " (\(why))")"
            case let (.regionEntered(beacon, cafe, at), .table):
                return "\(RFC3339.utcMicroseconds(at))  enter         \(beacon) (\(cafe ?? "unregistered"))"
            case let (.regionExited(beacon, cafe, at), .table):
                return "\(RFC3339.utcMicroseconds(at))  exit          \(beacon) (\(cafe ?? "unregistered"))"
            }
        }
    }
}

extension RangingEvent {
    /// Whether the event is a change of nearest café.
    var isCafeChange: Bool {
        if case .nearestCafeChanged = self { return true }
        return false
    }
}
