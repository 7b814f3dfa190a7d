import Foundation
import Testing

@testable import Beacons

@Suite("btsnoop captures")
struct BTSnoopTests {
    static let event = Fixtures.metaEvent(
        subevent: 0x02,
        reports: [
            Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -61))
        ])
    static let command = HCICommand(opcode: 0x200C, parameters: [0x01, 0x00]).bytes
    static let time = Date(timeIntervalSince1970: 1_790_000_000.123456)

    @Test("writing then reading gives the same packets", arguments: BTSnoopDatalink.allCases)
    func roundTrip(datalink: BTSnoopDatalink) throws {
        var writer = BTSnoopWriter(datalink: datalink)
        writer.append(type: .command, direction: .sent, adapterIndex: 0, date: Self.time, payload: Self.command)
        writer.append(type: .event, direction: .received, adapterIndex: 0, date: Self.time, payload: Self.event)
        let reader = try BTSnoopReader(bytes: writer.bytes)
        #expect(reader.datalink == datalink)
        let (packets, summary) = reader.packets()
        #expect(summary.recordCount == 2 && summary.warning == nil)
        #expect(packets.map(\.type) == [.command, .event])
        #expect(packets.map(\.direction) == [.sent, .received])
        #expect(packets.map(\.payload) == [Self.command, Self.event])
        let sightings = reader.sightings().sightings
        #expect(sightings.count == 1)
        let micros = (try #require(sightings.first).time.timeIntervalSince1970 * 1_000_000).rounded()
        #expect(micros == 1_790_000_000_123_456)
    }

    @Test("the monitor datalink keeps the adapter index in the flags")
    func monitorIndex() throws {
        var writer = BTSnoopWriter(datalink: .linuxMonitor)
        writer.append(type: .event, direction: .received, adapterIndex: 2, timestamp: 0, payload: Self.event)
        #expect(writer.bytes[16 + 8..<16 + 12].elementsEqual([0x00, 0x02, 0x00, 0x03]))
        let packet = try #require(try BTSnoopReader(bytes: writer.bytes).packets().packets.first)
        #expect(packet.adapterIndex == 2 && packet.type == .event)
    }

    @Test("timestamps count microseconds from year 0")
    func timestamps() {
        #expect(BTSnoopTime.unixMicroseconds(fromBTSnoop: 0x00DC_DDB3_0F2F_8000) == 0)
        #expect(BTSnoopWriter.timestamp(for: Date(timeIntervalSince1970: 1)) == 0x00DC_DDB3_0F2F_8000 + 1_000_000)
    }

    @Test("a capture cut mid-record yields the whole records and a warning")
    func truncated() throws {
        var writer = BTSnoopWriter(datalink: .hciUART)
        for _ in 0..<3 {
            writer.append(type: .event, direction: .received, date: Self.time, payload: Self.event)
        }
        let cut = Array(writer.bytes.dropLast(5))
        let (sightings, summary) = try BTSnoopReader(bytes: cut).sightings()
        #expect(sightings.count == 2)
        #expect(summary.recordCount == 2)
        let warning = try #require(summary.warning)
        #expect(warning.contains("mid-record"))
        let headerOnlyCut = Array(writer.bytes.prefix(16 + 10))
        #expect(try BTSnoopReader(bytes: headerOnlyCut).packets().summary.trailingByteCount == 10)
    }

    @Test(
        "a record btsnoop marks as cut (included < original) yields its whole reports; a lying length byte yields none and is counted"
    )
    func cutRecords() throws {
        let twoReports = Fixtures.metaEvent(
            subevent: 0x02,
            reports: [
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -61)),
                Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -62)),
            ])
        let cut = Array(twoReports.dropLast(10))
        for datalink in [BTSnoopDatalink.hciUnencapsulated, .hciUART, .linuxMonitor] {
            var writer = BTSnoopWriter(datalink: datalink)
            writer.append(type: .event, direction: .received, date: Self.time, payload: cut)
            // The record as btsnoop writes a cut packet: the original length stays the packet's own.
            let originalLength = UInt32(twoReports.count + (datalink == .hciUART ? 1 : 0))
            var bytes = writer.bytes
            bytes.replaceSubrange(16..<20, with: withUnsafeBytes(of: originalLength.bigEndian, Array.init))
            let (sightings, summary) = try BTSnoopReader(bytes: bytes).sightings()
            #expect(sightings.map(\.rssi) == [-61], "datalink \(datalink)")
            #expect(summary.malformedEventCount == 0 && summary.warning == nil)
            #expect(try BTSnoopReader(bytes: bytes).packets().packets.first?.isCut == true)

            // The same bytes in a whole record: the length byte lies, the event is malformed.
            let (none, counted) = try BTSnoopReader(bytes: writer.bytes).sightings()
            #expect(none.isEmpty, "datalink \(datalink)")
            #expect(counted.malformedEventCount == 1)
            #expect(try #require(counted.warning).contains("1 malformed event"))
        }
    }

    @Test("bytes that are not btsnoop are a clear error")
    func notBTSnoop() {
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: Array("hello world, not a capture".utf8)) }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: []) }
        let json = #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: Array("{\"json\": true}".utf8)) }
        #expect(json?.code == "btsnoop_not_btsnoop")
        var wrongDatalink = BTSnoopWriter.header(datalink: .hciUART)
        wrongDatalink[15] = 0xFF
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: wrongDatalink) }
    }
}

@Suite("monitor captures")
struct MonitorCaptureTests {
    @Test("monitor records that are not HCI packets (new index, notes) are skipped")
    func monitorNonPackets() throws {
        var bytes = BTSnoopWriter.header(datalink: .linuxMonitor)
        func record(opcode: UInt32, payload: [UInt8]) {
            bytes.appendBigEndian(UInt32(payload.count))
            bytes.appendBigEndian(UInt32(payload.count))
            bytes.appendBigEndian(opcode)
            bytes.appendBigEndian(UInt32(0))
            bytes += [0, 0xDC, 0xDD, 0xB3, 0x0F, 0x2F, 0x80, 0x00]
            bytes += payload
        }
        record(opcode: 0, payload: [0x00, 0x01] + Fixtures.address.littleEndianBytes + Array("hci0\0\0\0\0".utf8))
        record(opcode: 12, payload: Array("Bluetooth subsystem version 2.22\0".utf8))
        record(opcode: 3, payload: BTSnoopTests.event)
        let reader = try BTSnoopReader(bytes: bytes)
        let (packets, summary) = reader.packets()
        #expect(summary.recordCount == 3)
        #expect(packets.map(\.type) == [nil, nil, .event])
        let sightings = reader.sightings().sightings
        #expect(sightings.count == 1)
        #expect(sightings.first?.time == Date(timeIntervalSince1970: 0))
    }
}
