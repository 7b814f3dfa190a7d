// MARK: - StorageCardATR

/// A contactless card's ATR as a PC/SC reader builds it (PC/SC part 3 §3.1.3.2.3): the standard byte names
/// the technology, the card name the product.
/// `3B 8F 80 01 80 4F 0C A0 00 00 03 06 <SS> <NN NN> 00 00 00 00 <TCK>`.
public struct StorageCardATR: Hashable, Sendable {
    /// The card's technology, as `canteen nfc read` names it.
    public enum Technology: String, Hashable, Sendable, Codable {
        case type2
        case felica
        case iso15693
        case iso14443a
        case iso14443b
        case unknown
    }

    public var standard: UInt8
    public var cardName: UInt16

    /// FeliCa is card name F011/F012 (212 and 424 kbit/s) whatever the standard byte; Type 2 is ISO 14443 A
    /// part 3 with an Ultralight-family name (0003, 0026, 0027, 003A).
    public var technology: Technology {
        if cardName == 0xF011 || cardName == 0xF012 { return .felica }
        return switch standard {
        case 0x03:
            cardName == 0x0003 || cardName >= 0x0026 && cardName <= 0x0027 || cardName == 0x003A ? .type2 : .iso14443a
        case 0x01, 0x02: .iso14443a
        case 0x05, 0x06, 0x07: .iso14443b
        case 0x09, 0x0A, 0x0B, 0x0C: .iso15693
        case 0x11: .felica
        default: .unknown
        }
    }

    static let prefix: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]

    public init(standard: UInt8, cardName: UInt16) {
        self.standard = standard
        self.cardName = cardName
    }

    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        guard bytes.count == 20 else {
            throw NFCDecodingError(
                code: bytes.count < 20 ? "nfc_truncated" : "nfc_invalid_value", offset: min(bytes.count, 20),
                message: "a PC/SC storage-card ATR has 20 bytes, not \(bytes.count)")
        }
        for (index, byte) in Self.prefix.enumerated() where bytes[index] != byte {
            throw .invalid(
                "not a PC/SC storage-card ATR: byte is 0x\([bytes[index]].hexString), expected 0x\([byte].hexString)",
                at: index)
        }
        let check = bytes[1..<19].reduce(0, ^)
        guard check == bytes[19] else {
            throw .invalid("ATR checksum is 0x\([bytes[19]].hexString), the bytes give 0x\([check].hexString)", at: 19)
        }
        standard = bytes[12]
        cardName = UInt16(bytes[13]) << 8 | UInt16(bytes[14])
    }

    public var encoded: [UInt8] {
        let body = Self.prefix + [standard, UInt8(cardName >> 8), UInt8(cardName & 0xFF), 0, 0, 0, 0]
        return body + [body.dropFirst().reduce(0, ^)]
    }
}
