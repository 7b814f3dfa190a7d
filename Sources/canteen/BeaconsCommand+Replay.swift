import ArgumentParser
import Beacons

extension BeaconsCommand {
    /// `canteen beacons replay FILE`: the iBeacon sightings in a btsnoop capture.
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the iBeacon sightings in a btsnoop capture (datalinks 1001, 1002, 2001).")

        @Argument(help: "A btsnoop capture, e.g. from `btmon -w FILE`.")
        var file: String

        @Option(help: "Output format: jsonl (one sighting per line) or table.")
        var format: BeaconsOutputFormat = .jsonl

        func run() async throws {
            try await BeaconsConsole.run {
                let reader = try BeaconsConsole.readCapture(file)
                var output = BufferedOutput()
                if format == .table {
                    output.line(
                        BeaconsConsole.pad("time", 29) + BeaconsConsole.pad("address", 19)
                            + BeaconsConsole.pad("beacon", 48) + BeaconsConsole.pad("tx", 5) + "rssi")
                }
                var events = BTSnoopReader.Summary()
                var summary = reader.forEachPacket { packet in
                    guard packet.type == .event, packet.direction == .received else { return }
                    events.count(
                        IBeaconSighting.forEachSighting(
                            inEvent: packet.payload, time: packet.date,
                            cutByCapture: packet.isCut
                        ) { sighting in
                            output.line(format == .jsonl ? sighting.jsonLine : BeaconsConsole.tableRow(sighting))
                        })
                }
                summary.malformedEventCount = events.malformedEventCount
                output.flush()
                if let warning = summary.warning {
                    BeaconsConsole.warn("warning: \(file): \(warning)")
                }
            }
        }
    }
}
