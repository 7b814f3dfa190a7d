import CanteenCore
import Foundation
import Testing
@testable import Beacons

@Suite("btsnoop captures")
struct BTSnoopTests {
    static let event = Fixtures.metaEvent(subevent: 0x02, reports: [
        Fixtures.legacyReport(data: Fixtures.beacon.advertisingData(), rssi: UInt8(bitPattern: -61)),
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
        #expect(RFC3339.utcMicroseconds(try #require(sightings.first).time) == "2026-09-21T14:13:20.123456Z")
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
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: -1) == "1969-12-31T23:59:59.999999Z")
        #expect(RFC3339.utcMicroseconds(unixMicroseconds: 951_782_400_000_001) == "2000-02-29T00:00:00.000001Z")
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

@Suite("sightings as JSON lines and monitor captures")
struct SightingOutputTests {
    @Test("a sighting prints as one JSON line with upper-case UUID and a null RSSI when not available")
    func jsonLine() {
        var sighting = IBeaconSighting(time: Date(timeIntervalSince1970: 1_790_000_000.000042), address: Fixtures.address,
                                       identity: Fixtures.identity, txPower: -59, rssi: -61)
        #expect(sighting.jsonLine == #"{"time": "2026-09-21T14:13:20.000042Z", "address": "AA:BB:CC:DD:EE:FF", "#
            + #""uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 258, "minor": 772, "txPower": -59, "rssi": -61}"#)
        sighting.rssi = nil
        #expect(sighting.jsonLine.hasSuffix(#""rssi": null}"#))
    }

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
