import Foundation

// MARK: - AdvertisingReport

/// One advertising report from an LE Advertising Report or LE Extended Advertising Report event.
public struct AdvertisingReport: Hashable, Sendable {
    /// Which event the report came from.
    public enum Format: Hashable, Sendable {
        case legacy
        case extended
    }

    /// Whether the advertising data is whole (extended reports may arrive in fragments).
    public enum DataStatus: UInt8, Hashable, Sendable {
        case complete = 0
        case incompleteMoreToCome = 1
        case incompleteTruncated = 2
        case reserved = 3
    }

    public var format: Format
    /// Legacy: 0 ADV_IND … 4 SCAN_RSP. Extended: the bit field (bit 4 = legacy PDU; bits 5–6 data status).
    public var eventType: UInt16
    public var addressType: UInt8
    public var address: BluetoothAddress
    /// Received signal strength in dBm; nil when the controller reported 127 (not available).
    public var rssi: Int8?
    /// Advertised TX power (extended reports only); nil when not available.
    public var txPower: Int8?
    public var dataStatus: DataStatus
    /// The advertising data (AD structures).
    public var data: [UInt8]

    public init(
        format: Format, eventType: UInt16, addressType: UInt8, address: BluetoothAddress,
        rssi: Int8?, txPower: Int8? = nil, dataStatus: DataStatus = .complete, data: [UInt8]
    ) {
        self.format = format
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.dataStatus = dataStatus
        self.data = data
    }

    /// The owned copy of a borrowed report.
    public init(_ view: AdvertisingReportView) {
        self.init(
            format: view.format, eventType: view.eventType, addressType: view.addressType,
            address: view.address, rssi: view.rssi, txPower: view.txPower,
            dataStatus: view.dataStatus, data: Array(view.data))
    }

    /// All well-formed reports in an HCI event (code, length, parameters; no H4 byte).
    public static func reports(inEvent event: [UInt8]) -> (
        reports: [AdvertisingReport], summary: AdvertisingReportParser.Summary
    ) {
        var reports: [AdvertisingReport] = []
        let summary = event.withUnsafeBytes { raw in
            AdvertisingReportParser.forEachReport(inEvent: raw) { reports.append(AdvertisingReport($0)) }
        }
        return (reports, summary)
    }
}

// MARK: - AdvertisingReportView

/// A report borrowed from the event buffer; valid only inside the parser's callback.
public struct AdvertisingReportView {
    public var format: AdvertisingReport.Format
    public var eventType: UInt16
    public var addressType: UInt8
    public var address: BluetoothAddress
    public var rssi: Int8?
    public var txPower: Int8?
    public var dataStatus: AdvertisingReport.DataStatus
    /// The advertising data, borrowed from the event: do not keep it past the callback.
    public var data: UnsafeRawBufferPointer
}
