import ArgumentParser
import Beacons
import BlueZScanner
import CanteenApp
import CanteenCore
import CanteenJSON
import Foundation

// MARK: - BeaconsCommand

/// `canteen beacons …`: iBeacon captures, the live BlueZ scanner, ranging and calibration.
struct BeaconsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "Read iBeacon captures, scan with a BlueZ adapter, range and calibrate beacons.",
        subcommands: [Replay.self, Scan.self, Range.self, Calibrate.self, Simulate.self])
}

// MARK: - Shared input and output

/// Output formats of the beacon commands.
enum BeaconsOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl
    case table
}

/// The registered beacons: the database of `--data-dir`, or `--beacons FILE` instead.
struct RegistryOption: ParsableArguments {
    @Option(
        name: .customLong("beacons"),
        help:
            "Use this JSON list of beacons instead of the database: [{uuid, major, minor, cafeId, label, measuredPower}]."
    )
    var path: String?

    @OptionGroup var data: DataOptions

    var source: BeaconRegistrySource {
        get throws { BeaconRegistrySource(beaconsFile: path, store: try data.location()) }
    }

    /// The registry; warns on stderr when it is empty.
    func load() async throws -> BeaconRegistry {
        let source = try source
        let registry = try await source.load()
        if registry.beacons.isEmpty {
            BeaconsConsole.warn("warning: no registered beacons in \(source): no café can be chosen")
        }
        return registry
    }
}

/// A failure the command reports on stderr before exiting with status 1.
struct BeaconsCommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum BeaconsConsole {
    /// Prints to stderr.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Runs a command body; failures go to stderr with exit status 1 (scanner failures: `exitStatus(of:)`).
    static func run(_ body: () async throws -> Void) async throws {
        try await reportingErrors {
            do {
                try await body()
            } catch let error as BeaconsCommandFailure {
                warn("error: \(error.description)")
                throw ExitCode.failure
            } catch let error as ScannerError {
                warn("error: \(error.message) [\(error.code)]")
                throw ExitCode(exitStatus(of: error))
            } catch let error as BTSnoopError {
                warn("error: \(error.message) [\(error.code)]")
                throw ExitCode.failure
            }
        }
    }

    /// The exit status of a scanner failure (sysexits.h): 69 (EX_UNAVAILABLE) when there is no
    /// adapter to scan with (`bluetooth_unavailable`, `no_adapter`, `adapter_down`), 77 (EX_NOPERM)
    /// for `not_permitted`, 1 for anything else (`busy`, `command_failed`, `command_timeout`, …).
    static func exitStatus(of error: ScannerError) -> Int32 {
        switch error.code {
        case "bluetooth_unavailable", "no_adapter", "adapter_down": 69
        case "not_permitted": 77
        default: 1
        }
    }

    /// Reads a capture, turning every failure into a message.
    static func readCapture(_ path: String) throws -> BTSnoopReader {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw BeaconsCommandFailure("cannot read \(path): \(error.localizedDescription)")
        }
        do {
            return try BTSnoopReader(bytes: Array(data))
        } catch {
            throw BeaconsCommandFailure("\(path): \(error.message)")
        }
    }

    /// One sighting as a table row.
    static func tableRow(_ sighting: IBeaconSighting) -> String {
        let rssi = sighting.rssi.map { String($0) } ?? "n/a"
        return pad(RFC3339.utcMicroseconds(sighting.time), 29) + pad(sighting.address.description, 19)
            + pad(sighting.identity.description, 48) + pad(String(sighting.txPower), 5) + rssi
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

// MARK: - BufferedOutput

/// Collects lines and writes them to stdout in large chunks.
struct BufferedOutput {
    private var buffer = ""

    mutating func line(_ text: String) {
        buffer += text
        buffer += "\n"
        if buffer.utf8.count > 64 * 1024 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
