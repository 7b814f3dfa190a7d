import ArgumentParser
import Beacons
import BlueZScanner
import CanteenApp
import CanteenCore
import Foundation

extension BeaconsCommand {
    /// `canteen beacons calibrate`: the median RSSI of one beacon held at 1 m, stored as the
    /// registered beacon's measured power (in the database of `--data-dir`, or `--beacons FILE`).
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure a beacon's power at 1 m (the median RSSI over a capture or a live scan) and store it.")

        @Argument(help: "A btsnoop capture taken with the beacon 1 m from the adapter.")
        var file: String?

        @Option(help: "Scan live with this adapter instead of reading a capture.")
        var device: String?

        @Option(help: "Seconds to scan live.")
        var seconds: Double = 30

        @Option(help: "The beacon, as UUID/MAJOR/MINOR.")
        var beacon: String

        @Flag(help: "Only print the measurement; store nothing.")
        var dryRun = false

        @OptionGroup var registry: RegistryOption

        func validate() throws {
            guard (file == nil) != (device == nil) else {
                throw ValidationError("give either a capture FILE or --device hciN")
            }
            guard BeaconIdentity(beacon) != nil else {
                throw ValidationError(
                    "--beacon must be UUID/MAJOR/MINOR, e.g. E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/1/1")
            }
        }

        func run() async throws {
            try await BeaconsConsole.run {
                guard let identity = BeaconIdentity(beacon) else { return }
                var sightings: [IBeaconSighting] = []
                if let file {
                    let (read, summary) = try BeaconsConsole.readCapture(file).sightings()
                    if let warning = summary.warning { BeaconsConsole.warn("warning: \(file): \(warning)") }
                    sightings = read
                } else {
                    BeaconsConsole.warn("scanning for \(seconds) s; hold the beacon 1 m from the adapter")
                    try await ScannerSession.run(ScannerConfiguration(device: device), stopAfter: seconds) { event in
                        if case let .sighting(sighting) = event, sighting.identity == identity {
                            sightings.append(sighting)
                        }
                    }
                }
                let samples = sightings.filter { $0.identity == identity && $0.rssi != nil }.count
                guard let median = RSSICalibration.medianRSSI(of: identity, in: sightings) else {
                    throw BeaconsCommandFailure("no sightings with an RSSI of \(identity)")
                }
                var line = "{\"beacon\": \"\(identity)\", \"measuredPower\": \(median), \"samples\": \(samples)"
                if dryRun {
                    print(line + ", \"stored\": false}")
                    return
                }
                do {
                    let (previous, _) = try await registry.source.storeMeasuredPower(median, for: identity)
                    line += ", \"previousMeasuredPower\": \(previous.measuredPower), \"stored\": true}"
                    print(line)
                } catch {
                    print(line + ", \"stored\": false}")
                    throw error
                }
            }
        }
    }
}
