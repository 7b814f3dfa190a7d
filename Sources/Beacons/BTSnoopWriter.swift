import Foundation

// MARK: - BTSnoopWriter

/// Writes btsnoop captures (datalinks 1001, 1002, 2001) into memory.
public struct BTSnoopWriter: Sendable {
    public let datalink: BTSnoopDatalink
    /// The capture so far: the file header followed by the records.
    public private(set) var bytes: [UInt8]

    public init(datalink: BTSnoopDatalink) {
        self.datalink = datalink
        self.bytes = Self.header(datalink: datalink)
    }

    /// The 16-byte file header.
    public static func header(datalink: BTSnoopDatalink) -> [UInt8] {
        var header = BTSnoopReader.magic
        header.appendBigEndian(UInt32(1))
        header.appendBigEndian(datalink.rawValue)
        return header
    }

    /// Appends one HCI packet (payload without the H4 byte).
    public mutating func append(
        type: H4PacketType, direction: PacketDirection, adapterIndex: UInt16 = 0,
        timestamp: Int64, payload: [UInt8]
    ) {
        Self.appendRecord(
            to: &bytes, datalink: datalink, type: type, direction: direction,
            adapterIndex: adapterIndex, timestamp: timestamp, payload: payload)
    }

    /// Appends one HCI packet stamped with a date.
    public mutating func append(
        type: H4PacketType, direction: PacketDirection, adapterIndex: UInt16 = 0,
        date: Date, payload: [UInt8]
    ) {
        append(
            type: type, direction: direction, adapterIndex: adapterIndex,
            timestamp: Self.timestamp(for: date), payload: payload)
    }

    /// The btsnoop timestamp of a date, to the microsecond.
    public static func timestamp(for date: Date) -> Int64 {
        BTSnoopTime.btsnoop(fromUnixMicroseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// Encodes one record onto `output`.
    public static func appendRecord(
        to output: inout [UInt8], datalink: BTSnoopDatalink, type: H4PacketType,
        direction: PacketDirection, adapterIndex: UInt16 = 0, timestamp: Int64,
        payload: [UInt8]
    ) {
        let received: UInt32 = direction == .received ? 1 : 0
        let isCommandOrEvent = type == .command || type == .event
        let flags: UInt32
        let length: Int
        switch datalink {
        case .hciUnencapsulated:
            flags = received | (isCommandOrEvent ? 2 : 0)
            length = payload.count
        case .hciUART:
            flags = received | (isCommandOrEvent ? 2 : 0)
            length = payload.count + 1
        case .linuxMonitor:
            let opcode: UInt32 =
                switch type {
                case .command: 2
                case .event: 3
                case .acl: direction == .sent ? 4 : 5
                case .sco: direction == .sent ? 6 : 7
                case .iso: direction == .sent ? 18 : 19
                }
            flags = UInt32(adapterIndex) << 16 | opcode
            length = payload.count
        }
        output.appendBigEndian(UInt32(length))
        output.appendBigEndian(UInt32(length))
        output.appendBigEndian(flags)
        output.appendBigEndian(UInt32(0))
        let stamp = UInt64(bitPattern: timestamp)
        output.appendBigEndian(UInt32(truncatingIfNeeded: stamp >> 32))
        output.appendBigEndian(UInt32(truncatingIfNeeded: stamp))
        if datalink == .hciUART { output.append(type.rawValue) }
        output += payload
    }
}
