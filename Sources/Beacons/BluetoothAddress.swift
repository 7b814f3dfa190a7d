// MARK: - BluetoothAddress

/// A 48-bit Bluetooth device address; printed most significant byte first (`AA:BB:CC:DD:EE:FF`).
public struct BluetoothAddress: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address as an integer: the first byte on the wire is the least significant.
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// The six bytes as they travel on the wire (little-endian).
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) }
    }

    public var description: String {
        let digits: [Character] = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(17)
        for index in stride(from: 5, through: 0, by: -1) {
            let byte = Int((rawValue >> (8 * UInt64(index))) & 0xFF)
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0x0F])
            if index > 0 { text.append(":") }
        }
        return text
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
