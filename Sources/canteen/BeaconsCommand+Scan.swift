import ArgumentParser
import Beacons
import BlueZScanner
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

extension BeaconsCommand {
    /// `canteen beacons scan`: the live scanner with a live table or JSON lines.
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan for iBeacons with a BlueZ adapter (needs CAP_NET_RAW and CAP_NET_ADMIN, or root).")

        @Option(help: "Adapter name (default: the first available adapter).")
        var device: String?

        @Flag(help: "Passive scanning: listen only, send no scan requests.")
        var passive = false

        @Option(help: "Also record every HCI packet to this btsnoop file (datalink 1002).")
        var record: String?

        @Option(help: "Output format: table (live table) or jsonl.")
        var format: BeaconsOutputFormat = .table

        @OptionGroup var registry: RegistryOption

        func run() async throws {
            try await BeaconsConsole.run {
                let registry = try await registry.load()
                let configuration = ScannerConfiguration(
                    device: device, active: !passive,
                    recordURL: record.map { URL(fileURLWithPath: $0) })
                var engine = RangingEngine(registry: registry)
                var lastDraw = Date.distantPast
                var output = BufferedOutput()
                var started = false
                try await ScannerSession.run(configuration) { event in
                    switch event {
                    case let .started(mode):
                        started = true
                        BeaconsConsole.warn(
                            "scanning (\(mode.rawValue) commands, \(passive ? "passive" : "active")); Ctrl-C stops")
                    case let .sighting(sighting):
                        engine.process(sighting)
                        if format == .jsonl {
                            output.line(sighting.jsonLine)
                            output.flush()
                        } else if Date().timeIntervalSince(lastDraw) >= 1 {
                            lastDraw = Date()
                            output.line(LiveTable.render(engine, clear: isatty(1) != 0))
                            output.flush()
                        }
                    case .stopped:
                        if started { BeaconsConsole.warn("scanning stopped") }
                    }
                }
            }
        }
    }
}

// MARK: - ScannerSession

/// Runs a `BlueZScanner` in a service group (SIGINT/SIGTERM shut it down gracefully) and hands its
/// events to `handle`; `stopAfter` seconds end it early.
enum ScannerSession {
    static func run(
        _ configuration: ScannerConfiguration, stopAfter: Double? = nil,
        handle: (ScannerEvent) throws -> Void
    ) async throws {
        var logger = Logger(label: "canteen.beacons")
        logger.logLevel = .warning
        let scanner = BlueZScanner(configuration: configuration, logger: logger)
        let group = ServiceGroup(services: [scanner], gracefulShutdownSignals: [.sigint, .sigterm], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            if let stopAfter {
                tasks.addTask {
                    try await Task.sleep(for: .milliseconds(Int(stopAfter * 1000)))
                    await group.triggerGracefulShutdown()
                }
            }
            for await event in scanner.events {
                try handle(event)
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }
}

// MARK: - LiveTable

/// The `scan` table: one row per beacon, and the nearest café.
enum LiveTable {
    static func render(_ engine: RangingEngine, clear: Bool) -> String {
        let now = engine.now ?? Date()
        var lines: [String] = []
        if clear { lines.append("\u{1B}[H\u{1B}[2J") }
        let header = ["beacon", "café", "rssi", "distance", "proximity", "last seen"]
        let widths = [48, 16, 7, 9, 10, 10]
        lines.append(zip(header, widths).map { BeaconsConsole.pad($0, $1) }.joined(separator: " "))
        for track in engine.tracks where track.inRegion {
            let row = [
                track.identity.description,
                track.registration?.cafeID ?? "-",
                track.smoothedRSSI.map { String(format: "%.1f", $0) } ?? "n/a",
                track.distance.map { String(format: "%.2f m", $0) } ?? "n/a",
                track.proximity(at: now, configuration: engine.configuration).rawValue,
                String(format: "%.1f s ago", now.timeIntervalSince(track.lastSeen)),
            ]
            lines.append(zip(row, widths).map { BeaconsConsole.pad($0, $1) }.joined(separator: " "))
        }
        lines.append("nearest café: \(engine.nearestCafeID ?? "none")")
        return lines.joined(separator: "\n")
    }
}
