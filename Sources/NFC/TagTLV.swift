// MARK: - TagTLV

/// One TLV block of a tag's data area (NFC Forum Type 2 and Type 5): null, lock control, memory control,
/// NDEF message, proprietary, terminator.
public enum TagTLV: Hashable, Sendable {
    case null
    case lockControl([UInt8])
    case memoryControl([UInt8])
    case ndef([UInt8])
    case proprietary([UInt8])
    /// A TLV of another tag, kept so it can be skipped and rewritten unchanged.
    case other(tag: UInt8, value: [UInt8])
    case terminator

    public var tag: UInt8 {
        switch self {
        case .null: 0x00
        case .lockControl: 0x01
        case .memoryControl: 0x02
        case .ndef: 0x03
        case .proprietary: 0xFD
        case .other(let tag, _): tag
        case .terminator: 0xFE
        }
    }

    var value: [UInt8] {
        switch self {
        case .null, .terminator: []
        case .lockControl(let value), .memoryControl(let value), .ndef(let value), .proprietary(let value),
            .other(_, let value):
            value
        }
    }

    /// The TLV's bytes: a 1-byte length up to 254, else `FF` and 2 bytes big-endian.
    public func encoded() throws(NFCEncodingError) -> [UInt8] {
        switch self {
        case .null, .terminator: return [tag]
        default:
            return Self.lengthField(value.count, tag: tag) + value
        }
    }

    /// Tag and length bytes for a value of `count` bytes.
    static func lengthField(_ count: Int, tag: UInt8) -> [UInt8] {
        count < 0xFF ? [tag, UInt8(count)] : [tag, 0xFF, UInt8(count >> 8), UInt8(count & 0xFF)]
    }

    /// Encodes TLVs one after another.
    public static func encode(_ tlvs: [TagTLV]) throws(NFCEncodingError) -> [UInt8] {
        var bytes: [UInt8] = []
        for tlv in tlvs {
            if tlv.value.count > 0xFFFE {
                throw NFCEncodingError(code: "nfc_too_large", message: "a TLV value holds at most 65534 bytes")
            }
            bytes += try tlv.encoded()
        }
        return bytes
    }

    /// A TLV with where it lies in the decoded area.
    public struct Located: Hashable, Sendable {
        public var tlv: TagTLV
        /// Offset of the tag byte.
        public var offset: Int
        /// Offset of the value's first byte.
        public var valueOffset: Int
    }

    /// Decodes the TLVs of a data area up to the terminator or the end of the area. `base` is added to offsets
    /// in errors and results (the area's offset in the tag memory).
    /// With `stopAfterNDEF`, decoding ends after the first NDEF TLV, as a reader does (what follows may be a
    /// message being written behind an NDEF length of zero).
    public static func decode(_ area: [UInt8], base: Int = 0, stopAfterNDEF: Bool = false) throws(NFCDecodingError)
        -> [Located]
    {
        var cursor = ByteCursor(area, base: base)
        var result: [Located] = []
        while !cursor.isAtEnd {
            let start = cursor.position
            let tag = try cursor.u8("TLV tag")
            switch tag {
            case 0x00:
                result.append(Located(tlv: .null, offset: start, valueOffset: start + 1))
                continue
            case 0xFE:
                result.append(Located(tlv: .terminator, offset: start, valueOffset: start + 1))
                return result
            default:
                break
            }
            let first = try cursor.u8("TLV length")
            var length = Int(first)
            if first == 0xFF {
                let lengthOffset = cursor.position
                length = Int(try cursor.u16BE("3-byte TLV length"))
                if length == 0xFFFF {
                    throw .invalid("TLV length FFFF is reserved", at: lengthOffset)
                }
            }
            let valueOffset = cursor.position
            guard length <= cursor.remaining else {
                throw NFCDecodingError(
                    code: "nfc_truncated", offset: start,
                    message:
                        "TLV 0x\([tag].hexString) declares \(length) bytes, only \(cursor.remaining) left in the data area"
                )
            }
            let value = try cursor.take(length, "TLV value")
            let tlv: TagTLV
            switch tag {
            case 0x01:
                guard length == 3 else { throw .invalid("a lock control TLV holds 3 bytes, not \(length)", at: start) }
                tlv = .lockControl(value)
            case 0x02:
                guard length == 3 else {
                    throw .invalid("a memory control TLV holds 3 bytes, not \(length)", at: start)
                }
                tlv = .memoryControl(value)
            case 0x03: tlv = .ndef(value)
            case 0xFD: tlv = .proprietary(value)
            default: tlv = .other(tag: tag, value: value)
            }
            result.append(Located(tlv: tlv, offset: start, valueOffset: valueOffset))
            if stopAfterNDEF, tag == 0x03 { return result }
        }
        return result
    }
}
