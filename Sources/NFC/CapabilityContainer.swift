// MARK: - CapabilityContainer

/// The 4-byte NDEF capability container: Type 2 tags keep it in page 3, Type 5 (ISO 15693) tags in block 0.
public struct CapabilityContainer: Hashable, Sendable {
    /// Which layout the container follows.
    public enum Layout: String, Hashable, Sendable {
        /// NFC Forum Type 2: `E1 <version> <size/8> <access nibbles>`.
        case type2
        /// NFC Forum Type 5: `E1 <version|access bits> <size/8> <features>`.
        case type5
    }

    public var layout: Layout
    /// Major and minor version as the container writes them (`0x10` Type 2 1.0, `0x40` Type 5 1.0).
    public var version: UInt8
    /// The size byte times 8: the size of the data area, or, as NXP and ST format Type 5 tags, of the whole
    /// memory (`NDEFTagMemory` reads it either way).
    public var dataAreaSize: Int
    /// False when the access condition forbids writing.
    public var isWritable: Bool
    /// The raw fourth byte (Type 2 access nibbles, Type 5 feature flags).
    public var lastByte: UInt8

    public init(layout: Layout, dataAreaSize: Int, isWritable: Bool = true) {
        self.layout = layout
        self.version = layout == .type2 ? 0x10 : 0x40
        self.dataAreaSize = dataAreaSize
        self.isWritable = isWritable
        self.lastByte = layout == .type2 ? (isWritable ? 0x00 : 0x0F) : 0x00
    }

    /// Reads the container. `offset` names where it lies in the memory dump, for errors.
    public init(bytes: [UInt8], layout: Layout, offset: Int = 0) throws(NFCDecodingError) {
        var cursor = ByteCursor(bytes, base: offset)
        let magic = try cursor.u8("capability container magic")
        guard magic == 0xE1 else {
            throw NFCDecodingError(
                code: "nfc_not_formatted", offset: offset,
                message: "no NDEF capability container: magic byte is 0x\([magic].hexString), not E1")
        }
        let second = try cursor.u8("capability container version")
        let size = try cursor.u8("capability container size")
        let last = try cursor.u8("capability container access byte")
        self.layout = layout
        self.dataAreaSize = Int(size) * 8
        self.lastByte = last
        switch layout {
        case .type2:
            guard second >> 4 == 1 else {
                throw .invalid(
                    "Type 2 mapping version \(second >> 4).\(second & 0x0F) is not supported (1.x is)", at: offset + 1)
            }
            version = second
            guard last >> 4 == 0 else { throw .invalid("read access 0x\(last >> 4) is not granted", at: offset + 3) }
            switch last & 0x0F {
            case 0x0: isWritable = true
            case 0xF: isWritable = false
            default: throw .invalid("write access 0x\(last & 0x0F) is proprietary", at: offset + 3)
            }
        case .type5:
            guard second >> 6 == 1 else {
                throw .invalid("Type 5 mapping version \(second >> 6) is not supported (1 is)", at: offset + 1)
            }
            version = second & 0xF0
            guard (second >> 2) & 0x03 == 0 else { throw .invalid("read access is not granted", at: offset + 1) }
            isWritable = second & 0x03 == 0
        }
    }

    /// The container's 4 bytes.
    public var encoded: [UInt8] {
        let size = UInt8(min(dataAreaSize / 8, 255))
        switch layout {
        case .type2:
            return [0xE1, version, size, (lastByte & 0xF0) | (isWritable ? 0x0 : 0xF)]
        case .type5:
            return [0xE1, (version & 0xF0) | (isWritable ? 0x0 : 0x3), size, lastByte]
        }
    }
}
