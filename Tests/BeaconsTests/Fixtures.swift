import Foundation

@testable import Beacons

// MARK: - Fixtures

/// Byte builders for advertising events and captures.
enum Fixtures {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let identity = BeaconIdentity(uuid: uuid, major: 258, minor: 772)
    static let beacon = IBeacon(identity: identity, measuredPower: -59)
    static let address = BluetoothAddress(rawValue: 0xAABB_CCDD_EEFF)

    /// One legacy report: ADV_IND, public address, data, RSSI.
    static func legacyReport(address: BluetoothAddress = address, data: [UInt8], rssi: UInt8) -> [UInt8] {
        [0x00, 0x00] + address.littleEndianBytes + [UInt8(data.count)] + data + [rssi]
    }

    /// One extended report with the given event type bits.
    static func extendedReport(
        eventType: UInt16 = 0x0013, address: BluetoothAddress = address, data: [UInt8],
        rssi: UInt8, txPower: UInt8 = 0x7F
    ) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01]
        bytes += address.littleEndianBytes
        bytes += [0x01, 0x00, 0xFF, txPower, rssi, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        bytes.append(UInt8(data.count))
        return bytes + data
    }

    /// An LE Meta event (no H4 byte) with a subevent, a count and reports laid one after another.
    static func metaEvent(subevent: UInt8, reports: [[UInt8]], count: Int? = nil) -> [UInt8] {
        let parameters = [subevent, UInt8(count ?? reports.count)] + reports.flatMap { $0 }
        return [0x3E, UInt8(parameters.count)] + parameters
    }
}
