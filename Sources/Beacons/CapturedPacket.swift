import Foundation

// MARK: - CapturedPacketView

/// One HCI packet of a capture, normalised across datalinks; borrowed, valid inside the callback.
public struct CapturedPacketView {
    /// The HCI packet type; nil for monitor records that are not HCI packets (index, notes).
    public var type: H4PacketType?
    public var direction: PacketDirection
    /// Controller index (datalink 2001); 0 elsewhere.
    public var adapterIndex: UInt16
    /// btsnoop timestamp (µs since year 0).
    public var timestamp: Int64
    /// The packet without its H4 byte.
    public var payload: UnsafeRawBufferPointer
    /// Whether the capture kept fewer bytes than the packet had (included < original length).
    public var isCut = false

    /// The timestamp as a date.
    public var date: Date {
        Date(timeIntervalSince1970: Double(BTSnoopTime.unixMicroseconds(fromBTSnoop: timestamp)) / 1_000_000)
    }
}

// MARK: - CapturedPacket

/// The owned copy of a captured packet.
public struct CapturedPacket: Hashable, Sendable {
    public var type: H4PacketType?
    public var direction: PacketDirection
    public var adapterIndex: UInt16
    public var timestamp: Int64
    public var payload: [UInt8]
    /// Whether the capture kept fewer bytes than the packet had.
    public var isCut: Bool

    public init(
        type: H4PacketType?, direction: PacketDirection, adapterIndex: UInt16 = 0,
        timestamp: Int64, payload: [UInt8], isCut: Bool = false
    ) {
        self.type = type
        self.direction = direction
        self.adapterIndex = adapterIndex
        self.timestamp = timestamp
        self.payload = payload
        self.isCut = isCut
    }

    public init(_ view: CapturedPacketView) {
        self.init(
            type: view.type, direction: view.direction, adapterIndex: view.adapterIndex,
            timestamp: view.timestamp, payload: Array(view.payload), isCut: view.isCut)
    }
}
