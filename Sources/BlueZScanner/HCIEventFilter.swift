// MARK: - HCIEventFilter

/// The kernel's per-socket HCI filter (`struct hci_filter`): packet types, event codes, opcode.
public struct HCIEventFilter: Hashable, Sendable {
    public var typeMask: UInt32
    public var eventMask0: UInt32
    public var eventMask1: UInt32
    public var opcode: UInt16

    public init(typeMask: UInt32 = 0, eventMask0: UInt32 = 0, eventMask1: UInt32 = 0, opcode: UInt16 = 0) {
        self.typeMask = typeMask
        self.eventMask0 = eventMask0
        self.eventMask1 = eventMask1
        self.opcode = opcode
    }

    /// Event packets only: LE Meta, Command Complete and Command Status.
    public static let leScanning: HCIEventFilter = {
        var filter = HCIEventFilter(typeMask: 1 << 4)  // HCI_EVENT_PKT
        for code: UInt8 in [0x0E, 0x0F, 0x3E] {
            if code < 32 { filter.eventMask0 |= 1 << UInt32(code) } else { filter.eventMask1 |= 1 << UInt32(code - 32) }
        }
        return filter
    }()
}
