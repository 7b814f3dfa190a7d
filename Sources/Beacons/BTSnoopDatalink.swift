// MARK: - BTSnoopDatalink

/// The btsnoop datalink types Canteen reads and writes.
public enum BTSnoopDatalink: UInt32, Sendable, Hashable, CaseIterable {
    /// HCI packets without the H4 byte; flags say direction and command/event vs data.
    case hciUnencapsulated = 1001
    /// HCI packets with the H4 byte (Android's `btsnoop_hci.log`).
    case hciUART = 1002
    /// The Linux monitor format `btmon -w` writes: adapter index and opcode in the flags.
    case linuxMonitor = 2001
}

// MARK: - PacketDirection

/// Whether the host sent a packet to the controller or received it.
public enum PacketDirection: Hashable, Sendable {
    case sent
    case received
}

// MARK: - BTSnoopTime

/// btsnoop timestamps: microseconds since midnight, 1 January of year 0.
public enum BTSnoopTime {
    /// btsnoop timestamp of the Unix epoch.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Unix microseconds for a btsnoop timestamp.
    public static func unixMicroseconds(fromBTSnoop timestamp: Int64) -> Int64 {
        timestamp &- unixEpochOffset
    }

    /// btsnoop timestamp for Unix microseconds.
    public static func btsnoop(fromUnixMicroseconds microseconds: Int64) -> Int64 {
        microseconds &+ unixEpochOffset
    }
}
