import Foundation

// MARK: - IBeaconSighting

/// One received iBeacon advertisement: who, when, and how strong.
public struct IBeaconSighting: Hashable, Sendable {
    public var time: Date
    public var address: BluetoothAddress
    public var identity: BeaconIdentity
    /// The measured power at 1 m the beacon advertises (dBm).
    public var txPower: Int8
    /// Received signal strength (dBm); nil when the controller did not report it.
    public var rssi: Int8?

    public init(time: Date, address: BluetoothAddress, identity: BeaconIdentity, txPower: Int8, rssi: Int8?) {
        self.time = time
        self.address = address
        self.identity = identity
        self.txPower = txPower
        self.rssi = rssi
    }

    /// Calls `body` for every iBeacon in an HCI event (code, length, parameters; no H4 byte);
    /// `cutByCapture` as for `AdvertisingReportParser.forEachReport`.
    @discardableResult
    public static func forEachSighting(
        inEvent event: UnsafeRawBufferPointer, time: Date, cutByCapture: Bool = false,
        _ body: (IBeaconSighting) throws -> Void
    ) rethrows -> AdvertisingReportParser.Summary {
        try AdvertisingReportParser.forEachReport(inEvent: event, cutByCapture: cutByCapture) { report in
            guard let beacon = IBeacon.parse(advertisingData: report.data) else { return }
            try body(
                IBeaconSighting(
                    time: time, address: report.address, identity: beacon.identity,
                    txPower: beacon.measuredPower, rssi: report.rssi))
        }
    }

    /// The iBeacons in an HCI event held in an array.
    public static func sightings(inEvent event: [UInt8], time: Date) -> [IBeaconSighting] {
        var result: [IBeaconSighting] = []
        _ = event.withUnsafeBytes { raw in
            forEachSighting(inEvent: raw, time: time) { result.append($0) }
        }
        return result
    }
}
