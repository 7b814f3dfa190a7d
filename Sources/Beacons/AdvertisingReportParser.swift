// MARK: - AdvertisingReportParser

/// Walks the reports of LE Advertising Report (0x02) and LE Extended Advertising Report (0x0D)
/// events without copying: several reports per event, laid out one after another.
public enum AdvertisingReportParser {
    public static let legacySubevent: UInt8 = 0x02
    public static let extendedSubevent: UInt8 = 0x0D

    /// What the parser made of one event.
    public struct Summary: Hashable, Sendable {
        /// Reports handed to the callback.
        public var reportCount = 0
        /// Reports skipped because their AD structures ran past their data.
        public var malformedCount = 0
        /// Whether the event ended before the announced reports did (the rest is dropped).
        public var truncated = false
        /// Whether the event's parameter-length byte disagreed with its bytes (and no capture cut
        /// explains it): the event is malformed and yields no report, as `HCIEvent` refuses it.
        public var malformedEvent = false

        public init() {}
    }

    /// Calls `body` for every well-formed report of an HCI event (code, length, parameters; no H4
    /// byte). Events of other kinds are ignored. Never reads outside `event`.
    ///
    /// An event whose length byte disagrees with its bytes is malformed and yields nothing (btmon
    /// refuses it too), unless `cutByCapture` says the capture itself kept fewer bytes than the
    /// packet had (a btsnoop record whose included length is below its original length): then the
    /// whole reports before the cut are still handed over.
    @discardableResult
    public static func forEachReport(
        inEvent event: UnsafeRawBufferPointer, cutByCapture: Bool = false,
        _ body: (AdvertisingReportView) throws -> Void
    ) rethrows -> Summary {
        var summary = Summary()
        guard event.count >= 2, event[0] == HCIEvent.leMetaCode else { return summary }
        guard let end = HCIEvent.parameterEnd(of: event, cutByCapture: cutByCapture) else {
            summary.malformedEvent = true
            return summary
        }
        if end < 2 + Int(event[1]) { summary.truncated = true }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: event[0..<end]), offset: 2)
        guard let subevent = reader.u8(), let count = reader.u8(),
            subevent == legacySubevent || subevent == extendedSubevent
        else { return summary }
        for _ in 0..<count {
            let parsed = subevent == legacySubevent ? legacyReport(&reader) : extendedReport(&reader)
            guard let report = parsed else {
                summary.truncated = true
                break
            }
            guard AdvertisingData.isWellFormed(report.data) else {
                summary.malformedCount += 1
                continue
            }
            summary.reportCount += 1
            try body(report)
        }
        return summary
    }

    /// One report of a legacy LE Advertising Report event, or nil when the event ends inside it.
    private static func legacyReport(_ reader: inout ByteReader) -> AdvertisingReportView? {
        guard let eventType = reader.u8(), let addressType = reader.u8(),
            let address = reader.address(), let length = reader.u8(),
            let data = reader.take(Int(length)), let rssi = reader.i8()
        else { return nil }
        return AdvertisingReportView(
            format: .legacy, eventType: UInt16(eventType), addressType: addressType,
            address: address, rssi: rssi == 127 ? nil : rssi, txPower: nil,
            dataStatus: .complete, data: data)
    }

    /// One report of an LE Extended Advertising Report event, or nil when the event ends inside it.
    private static func extendedReport(_ reader: inout ByteReader) -> AdvertisingReportView? {
        guard let eventType = reader.u16LE(), let addressType = reader.u8(),
            let address = reader.address(),
            reader.skip(3),  // primary PHY, secondary PHY, SID
            let txPower = reader.i8(), let rssi = reader.i8(),
            reader.skip(2 + 1 + 6),  // periodic interval, direct address type and address
            let length = reader.u8(), let data = reader.take(Int(length))
        else { return nil }
        let status = AdvertisingReport.DataStatus(rawValue: UInt8((eventType >> 5) & 0x3)) ?? .reserved
        return AdvertisingReportView(
            format: .extended, eventType: eventType, addressType: addressType,
            address: address, rssi: rssi == 127 ? nil : rssi,
            txPower: txPower == 127 ? nil : txPower, dataStatus: status, data: data)
    }
}
