import Beacons
import Foundation

/// btsnoop captures: whatever the reader accepts must be internally consistent and survive
/// being written back out.
enum BTSnoopFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let array = Array(bytes)
        read(array)
        // The same bytes as records after a valid header of each datalink, to reach the record
        // parser even when the fuzzer has not found a header yet.
        for datalink in BTSnoopDatalink.allCases {
            read(BTSnoopWriter.header(datalink: datalink) + array.prefix(4096))
        }
    }

    static func read(_ bytes: [UInt8]) {
        guard let reader = try? BTSnoopReader(bytes: bytes) else { return }
        let (packets, summary) = reader.packets()
        FuzzCheck.require(
            packets.count <= summary.recordCount, "packets \(packets.count) > records \(summary.recordCount)")
        FuzzCheck.require(summary.trailingByteCount <= bytes.count, "more trailing bytes than bytes")
        let (sightings, sightingSummary) = reader.sightings()
        FuzzCheck.require(sightingSummary == summary, "two passes over one capture disagree")
        let events = packets.filter { $0.type == .event && $0.direction == .received }
        let expected = events.reduce(0) { $0 + IBeaconSighting.sightings(inEvent: $1.payload, time: Date()).count }
        FuzzCheck.require(sightings.count == expected, "sightings \(sightings.count) ≠ those of the events \(expected)")
    }
}

/// HCI events and the advertising data inside them.
enum HCIFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let array = Array(bytes)
        if let event = HCIEvent(bytes: array) {
            FuzzCheck.require(HCIEvent(bytes: event.bytes) == event, "HCIEvent does not survive its own encoding")
        }
        if let command = HCICommand(bytes: array) {
            FuzzCheck.require(
                HCICommand(bytes: command.bytes) == command, "HCICommand does not survive its own encoding")
        }
        let (reports, summary) = AdvertisingReport.reports(inEvent: array)
        FuzzCheck.require(
            reports.count == summary.reportCount, "reports \(reports.count) ≠ summary \(summary.reportCount)")
        FuzzCheck.require(
            array.count < 4 || reports.count + summary.malformedCount <= Int(array[3]),
            "more reports than the event announces")
        var streamed: [IBeaconSighting] = []
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        IBeaconSighting.forEachSighting(inEvent: bytes, time: time) { streamed.append($0) }
        let sightings = IBeaconSighting.sightings(inEvent: array, time: time)
        FuzzCheck.require(streamed == sightings, "the two sighting readers disagree")
        FuzzCheck.require(sightings.count <= reports.count, "more sightings than reports")
        for sighting in sightings {
            FuzzCheck.require(
                reports.contains { report in
                    IBeacon.parse(advertisingData: report.data)?.identity == sighting.identity
                }, "a sighting no report carries")
        }
        for report in reports {
            checkAdvertisingData(report.data)
        }
        checkAdvertisingData(array)
        var deframer = H4Deframer()
        deframer.append(array)
        var consumed = 0
        while let packet = try? deframer.nextPacket() {
            consumed += packet.count
            FuzzCheck.require(consumed <= array.count, "H4 packets longer than the bytes given")
        }
    }

    static func checkAdvertisingData(_ data: [UInt8]) {
        let structures = AdvertisingData.structures(in: data)
        let wellFormed = data.withUnsafeBytes { AdvertisingData.isWellFormed($0) }
        FuzzCheck.require((structures != nil) == wellFormed, "structures and isWellFormed disagree")
        if let beacon = IBeacon.parse(advertisingData: data) {
            FuzzCheck.require(
                IBeacon.parse(advertisingData: beacon.advertisingData()) == beacon,
                "an iBeacon does not survive its own advertising data")
        }
    }
}
