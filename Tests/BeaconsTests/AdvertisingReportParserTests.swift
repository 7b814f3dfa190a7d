import Foundation
import Testing

@testable import Beacons

@Suite("LE advertising report parsing")
struct AdvertisingReportParserTests {
    @Test("a legacy report yields address MSB first, RSSI and data")
    func legacySingle() throws {
        let event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -58))
            ])
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(summary.reportCount == 1 && summary.malformedCount == 0 && !summary.truncated)
        #expect(report.address.description == "AA:BB:CC:DD:EE:FF")
        #expect(report.rssi == -58)
        #expect(report.format == .legacy)
        #expect(IBeacon.parse(advertisingData: report.data) == Fixtures.beacon)
    }

    @Test("several legacy reports in one event are read one after another")
    func legacyMultiple() {
        let second = BluetoothAddress(rawValue: 0x1122_3344_5566)
        let event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -60)),
                Fixtures.legacyReport(address: second, data: [0x02, 0x01, 0x06], rssi: UInt8(bitPattern: -70)),
                Fixtures.legacyReport(data: [], rssi: UInt8(bitPattern: -80)),
            ])
        let (reports, _) = AdvertisingReport.reports(inEvent: event)
        #expect(reports.map(\.rssi) == [-60, -70, -80])
        #expect(reports[1].address.description == "11:22:33:44:55:66")
        #expect(IBeaconSighting.sightings(inEvent: event, time: Date(timeIntervalSince1970: 0)).count == 1)
    }

    @Test("RSSI 127 means not available")
    func rssiNotAvailable() throws {
        let event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 127)
            ])
        let sighting = try #require(IBeaconSighting.sightings(inEvent: event, time: Date()).first)
        #expect(sighting.rssi == nil)
    }

    @Test("extended reports carry RSSI, TX power and data status")
    func extended() throws {
        let event = Fixtures.metaEvent(
            subevent: 0x0D,
            reports: [
                Fixtures.extendedReport(
                    data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -66), txPower: 4),
                Fixtures.extendedReport(eventType: 0x0020 | 0x0001, data: [0x02, 0x01, 0x06], rssi: 127),
                Fixtures.extendedReport(eventType: 0x0040, data: [0x02, 0x01, 0x06], rssi: UInt8(bitPattern: -90)),
            ])
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        #expect(summary.reportCount == 3)
        #expect(reports.map(\.dataStatus) == [.complete, .incompleteMoreToCome, .incompleteTruncated])
        #expect(reports.map(\.rssi) == [-66, nil, -90])
        #expect(reports[0].txPower == 4 && reports[1].txPower == nil)
        #expect(reports.allSatisfy { $0.format == .extended })
        let sightings = IBeaconSighting.sightings(inEvent: event, time: Date())
        #expect(sightings.map(\.identity) == [Fixtures.identity])
    }

    @Test("an AD length running past the data skips that report and keeps the rest")
    func overlongAD() {
        let event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: [0x05, 0xFF, 0x4C], rssi: 0xC0),
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC5),
            ])
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        #expect(summary.malformedCount == 1)
        #expect(reports.count == 1)
        #expect(reports.first?.rssi == Int8(bitPattern: 0xC5))
    }

    @Test("a zero AD length ends the significant part")
    func zeroLengthEnds() {
        let data = Fixtures.beacon.advertisingData() + [0x00, 0x00, 0x17, 0x99]
        #expect(IBeacon.parse(advertisingData: data) == Fixtures.beacon)
        let afterZero = [0x02, 0x01, 0x06, 0x00] + Fixtures.beacon.advertisingData(includingFlags: false)
        #expect(IBeacon.parse(advertisingData: afterZero) == nil)
    }

    @Test("an event whose length byte says more than its bytes is malformed: no reports, as HCIEvent refuses it")
    func lengthBeyondBytes() {
        var event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC0),
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC1),
            ])
        event.removeLast(10)
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        #expect(reports.isEmpty && summary.malformedEvent && summary.reportCount == 0)
        #expect(IBeaconSighting.sightings(inEvent: event, time: Date()).isEmpty)
        #expect(HCIEvent(bytes: event) == nil)
    }

    @Test("an event whose length byte says less than its bytes is malformed too")
    func lengthShortOfBytes() {
        let event =
            Fixtures.metaEvent(
                subevent: 0x02,
                reports: [
                    Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC0)
                ]) + [0x00, 0x00]
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        #expect(reports.isEmpty && summary.malformedEvent)
        #expect(HCIEvent(bytes: event) == nil)
        #expect(HCIEvent(bytes: event, cutByCapture: true) == nil)
    }

    @Test("an event the capture cut keeps the whole reports before the cut, in both parsers")
    func cutByCapture() throws {
        var event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC0),
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC1),
            ])
        event.removeLast(10)
        let summary = event.withUnsafeBytes { raw in
            AdvertisingReportParser.forEachReport(inEvent: raw, cutByCapture: true) { _ in }
        }
        #expect(summary.reportCount == 1 && summary.truncated && !summary.malformedEvent)
        let decoded = try #require(HCIEvent(bytes: event, cutByCapture: true))
        #expect(decoded == .leMeta(subevent: 0x02, parameters: Array(event[3...])))
    }

    @Test("a count larger than the reports present stops at the end")
    func countTooLarge() {
        let event = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: 0xC0)
            ], count: 9)
        let (reports, summary) = AdvertisingReport.reports(inEvent: event)
        #expect(reports.count == 1 && summary.truncated)
    }

    @Test("other LE meta subevents and other events yield nothing")
    func otherEvents() {
        #expect(AdvertisingReport.reports(inEvent: [0x3E, 0x03, 0x01, 0x00, 0x00]).reports.isEmpty)
        #expect(AdvertisingReport.reports(inEvent: [0x0E, 0x04, 0x01, 0x02, 0x10, 0x00]).reports.isEmpty)
        #expect(AdvertisingReport.reports(inEvent: []).reports.isEmpty)
    }
}

@Suite("iBeacon recognition")
struct IBeaconTests {
    @Test("major and minor are big-endian and measured power is signed")
    func fields() throws {
        let beacon = try #require(IBeacon.parse(advertisingData: Fixtures.beacon.advertisingData()))
        #expect(beacon.identity.major == 258 && beacon.identity.minor == 772)
        #expect(beacon.measuredPower == -59)
        #expect(beacon.identity.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/258/772")
    }

    @Test(
        "manufacturer data of another company, another Apple type or a wrong length is not an iBeacon",
        arguments: [(2, UInt8(0x4D)), (3, UInt8(0x01)), (4, UInt8(0x12)), (5, UInt8(0x14))])
    func notIBeacon(offset: Int, value: UInt8) {
        var data = Fixtures.beacon.advertisingData(includingFlags: false)
        data[offset] = value
        #expect(IBeacon.parse(advertisingData: data) == nil)
    }

    @Test("an iBeacon structure with a byte too many is not an iBeacon")
    func wrongStructureLength() {
        var data = Fixtures.beacon.advertisingData(includingFlags: false)
        data[0] = 0x1B
        data.append(0x00)
        #expect(IBeacon.parse(advertisingData: data) == nil)
    }

    @Test("beacon identities parse from UUID/MAJOR/MINOR")
    func identityText() {
        #expect(BeaconIdentity("e2c56db5-dffb-48d2-b060-d0f5a71096e0/258/772") == Fixtures.identity)
        #expect(BeaconIdentity("nope/1/2") == nil)
        #expect(BeaconIdentity("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0/70000/1") == nil)
    }
}

@Suite("H4 framing")
struct H4DeframerTests {
    @Test("packets split across reads come out whole, several per read too")
    func framing() throws {
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x02, 0x10, 0x00]
        let command: [UInt8] = [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00]
        let acl: [UInt8] = [0x02, 0x01, 0x00, 0x02, 0x00, 0xAA, 0xBB]
        var deframer = H4Deframer()
        deframer.append(event.prefix(3))
        #expect(try deframer.nextPacket() == nil)
        deframer.append(event.dropFirst(3) + command + acl)
        #expect(try deframer.nextPacket() == event)
        #expect(try deframer.nextPacket() == command)
        #expect(try deframer.nextPacket() == acl)
        #expect(try deframer.nextPacket() == nil)
    }

    @Test("an unknown indicator byte is a framing error")
    func unknownIndicator() {
        var deframer = H4Deframer()
        deframer.append([0x09, 0x00])
        #expect(throws: H4Deframer.FramingError.self) { try deframer.nextPacket() }
    }

    @Test("HCI command complete and status events decode")
    func events() {
        #expect(
            HCIEvent(bytes: [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x0C])
                == .commandComplete(opcode: 0x200C, returnParameters: [0x0C]))
        #expect(HCIEvent(bytes: [0x0F, 0x04, 0x00, 0x01, 0x42, 0x20]) == .commandStatus(opcode: 0x2042, status: 0))
        #expect(HCIEvent(bytes: [0x0E, 0x09]) == nil)
        let event = HCIEvent.commandComplete(opcode: 0x1002, returnParameters: [0, 1, 2])
        #expect(HCIEvent(bytes: event.bytes) == event)
    }
}
