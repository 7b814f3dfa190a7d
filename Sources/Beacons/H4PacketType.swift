// MARK: - H4PacketType

/// The one-byte packet indicator that precedes each HCI packet on an H4 (UART) transport.
public enum H4PacketType: UInt8, Sendable, Hashable, CaseIterable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05

    /// Size of the header after the indicator byte, and where its payload length sits.
    var headerLength: Int {
        switch self {
        case .command: 3  // opcode u16, length u8
        case .acl: 4  // handle u16, length u16
        case .sco: 3  // handle u16, length u8
        case .event: 2  // code u8, length u8
        case .iso: 4  // handle u16, length u16 (14 bits)
        }
    }

    /// The payload length announced by a header of this type.
    func payloadLength(header: UnsafeRawBufferPointer) -> Int {
        switch self {
        case .command, .sco: Int(header[2])
        case .event: Int(header[1])
        case .acl: Int(header[2]) | Int(header[3]) << 8
        case .iso: (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF
        }
    }
}
