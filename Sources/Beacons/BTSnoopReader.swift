import Foundation

// MARK: - BTSnoopReader

/// Reads a btsnoop capture (datalinks 1001, 1002, 2001) held in memory.
public struct BTSnoopReader: Sendable {
    /// What reading the records found.
    public struct Summary: Hashable, Sendable {
        /// Whole records read.
        public var recordCount = 0
        /// Bytes after the last whole record (a capture cut mid-record); 0 for a whole file.
        public var trailingByteCount = 0
        /// Received events whose length byte disagreed with their bytes (counted by `sightings()`
        /// and by callers that pass each event's parser summary to `count(_:)`); they yield nothing.
        public var malformedEventCount = 0

        public init() {}

        /// Counts what the report parser found wrong with one event.
        public mutating func count(_ event: AdvertisingReportParser.Summary) {
            if event.malformedEvent { malformedEventCount += 1 }
        }

        /// A warning for a capture that ends mid-record or holds malformed events, nil otherwise.
        public var warning: String? {
            var parts: [String] = []
            if trailingByteCount > 0 {
                parts.append(
                    "capture ends mid-record: read \(recordCount) whole records, ignored the last \(trailingByteCount) bytes"
                )
            }
            if malformedEventCount > 0 {
                parts.append(
                    "ignored \(malformedEventCount) malformed event\(malformedEventCount == 1 ? "" : "s") "
                        + "(parameter length disagrees with the bytes)")
            }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    public static let headerLength = 16
    static let magic: [UInt8] = Array("btsnoop".utf8) + [0]

    public let bytes: [UInt8]
    public let datalink: BTSnoopDatalink

    /// Checks the file header; throws `BTSnoopError` for anything that is not a btsnoop capture.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        guard bytes.count >= Self.headerLength, bytes[0..<8].elementsEqual(Self.magic) else {
            throw .notBTSnoop
        }
        let version = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        guard version == 1 else { throw .unsupportedVersion(version) }
        let rawDatalink = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        guard let datalink = BTSnoopDatalink(rawValue: rawDatalink) else { throw .unsupportedDatalink(rawDatalink) }
        self.bytes = bytes
        self.datalink = datalink
    }

    /// Reads a capture file.
    public init(contentsOf url: URL) throws {
        try self.init(bytes: Array(try Data(contentsOf: url)))
    }

    /// Calls `body` for each whole record in order; a cut-off last record ends the walk.
    @discardableResult
    public func forEachPacket(_ body: (CapturedPacketView) throws -> Void) rethrows -> Summary {
        try bytes.withUnsafeBytes { raw in
            var summary = Summary()
            var reader = ByteReader(raw, offset: Self.headerLength)
            while reader.remaining > 0 {
                let recordStart = reader.offset
                guard let original = reader.u32BE(), let included = reader.u32BE(), let flags = reader.u32BE(),
                    reader.skip(4), let timestamp = reader.i64BE(),
                    let packet = reader.take(Int(included))
                else {
                    summary.trailingByteCount = raw.count - recordStart
                    break
                }
                summary.recordCount += 1
                if var view = Self.packet(datalink: datalink, flags: flags, timestamp: timestamp, packet: packet) {
                    view.isCut = included < original
                    try body(view)
                }
            }
            return summary
        }
    }

    /// Every record as an owned packet, plus the summary.
    public func packets() -> (packets: [CapturedPacket], summary: Summary) {
        var packets: [CapturedPacket] = []
        let summary = forEachPacket { packets.append(CapturedPacket($0)) }
        return (packets, summary)
    }

    /// Every iBeacon sighting in received events, in capture order, plus the summary.
    public func sightings() -> (sightings: [IBeaconSighting], summary: Summary) {
        var sightings: [IBeaconSighting] = []
        var events = Summary()
        var summary = forEachPacket { packet in
            guard packet.type == .event, packet.direction == .received else { return }
            events.count(
                IBeaconSighting.forEachSighting(
                    inEvent: packet.payload, time: packet.date,
                    cutByCapture: packet.isCut
                ) { sightings.append($0) })
        }
        summary.malformedEventCount = events.malformedEventCount
        return (sightings, summary)
    }

    // MARK: - Datalinks

    static func packet(
        datalink: BTSnoopDatalink, flags: UInt32, timestamp: Int64,
        packet: UnsafeRawBufferPointer
    ) -> CapturedPacketView? {
        switch datalink {
        case .hciUnencapsulated:
            let received = flags & 1 != 0
            let type: H4PacketType = flags & 2 != 0 ? (received ? .event : .command) : .acl
            return CapturedPacketView(
                type: type, direction: received ? .received : .sent, adapterIndex: 0,
                timestamp: timestamp, payload: packet)
        case .hciUART:
            guard let first = packet.first else { return nil }
            return CapturedPacketView(
                type: H4PacketType(rawValue: first), direction: flags & 1 != 0 ? .received : .sent,
                adapterIndex: 0, timestamp: timestamp,
                payload: UnsafeRawBufferPointer(rebasing: packet[1...]))
        case .linuxMonitor:
            let index = UInt16(truncatingIfNeeded: flags >> 16)
            let type: H4PacketType?
            let direction: PacketDirection
            switch flags & 0xFFFF {
            case 2: (type, direction) = (.command, .sent)
            case 3: (type, direction) = (.event, .received)
            case 4: (type, direction) = (.acl, .sent)
            case 5: (type, direction) = (.acl, .received)
            case 6: (type, direction) = (.sco, .sent)
            case 7: (type, direction) = (.sco, .received)
            case 18: (type, direction) = (.iso, .sent)
            case 19: (type, direction) = (.iso, .received)
            default: (type, direction) = (nil, .received)
            }
            return CapturedPacketView(
                type: type, direction: direction, adapterIndex: index,
                timestamp: timestamp, payload: packet)
        }
    }
}
