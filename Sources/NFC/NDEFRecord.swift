// MARK: - NDEFTypeNameFormat

/// The TNF field of an NDEF record header: how to read the record's type.
public enum NDEFTypeNameFormat: UInt8, Hashable, Sendable, CaseIterable, Codable {
    case empty = 0
    case wellKnown = 1
    case media = 2
    case absoluteURI = 3
    case external = 4
    case unknown = 5
    case unchanged = 6
    case reserved = 7

    /// The name used in JSON and tables.
    public var name: String {
        switch self {
        case .empty: "empty"
        case .wellKnown: "well-known"
        case .media: "media"
        case .absoluteURI: "absolute-uri"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "reserved"
        }
    }
}

// MARK: - NDEFRecord

/// One NDEF record: type name format, type, optional identifier and payload.
public struct NDEFRecord: Hashable, Sendable {
    public var typeNameFormat: NDEFTypeNameFormat
    public var type: [UInt8]
    public var identifier: [UInt8]
    public var payload: [UInt8]

    public init(typeNameFormat: NDEFTypeNameFormat, type: [UInt8] = [], identifier: [UInt8] = [], payload: [UInt8] = [])
    {
        self.typeNameFormat = typeNameFormat
        self.type = type
        self.identifier = identifier
        self.payload = payload
    }

    /// The empty record (TNF 0), what an empty NDEF message holds.
    public static let empty = NDEFRecord(typeNameFormat: .empty)

    /// The type as text (ASCII for well-known, MIME and external types).
    public var typeText: String { String(decoding: type, as: UTF8.self) }

    // MARK: Header bits

    static let messageBegin: UInt8 = 0x80
    static let messageEnd: UInt8 = 0x40
    static let chunkFlag: UInt8 = 0x20
    static let shortRecord: UInt8 = 0x10
    static let identifierPresent: UInt8 = 0x08

    /// Checks the TNF rules of NFC Forum NDEF 1.0 §3.2.6 that encoding enforces.
    func validate() throws(NFCEncodingError) {
        switch typeNameFormat {
        case .empty:
            guard type.isEmpty, identifier.isEmpty, payload.isEmpty else {
                throw NFCEncodingError(
                    code: "nfc_invalid_record", message: "an empty record (TNF 0) has no type, identifier or payload")
            }
        case .wellKnown, .media, .absoluteURI, .external:
            guard !type.isEmpty else {
                throw NFCEncodingError(
                    code: "nfc_invalid_record", message: "a \(typeNameFormat.name) record needs a type")
            }
        case .unknown:
            guard type.isEmpty else {
                throw NFCEncodingError(code: "nfc_invalid_record", message: "an unknown record (TNF 5) has no type")
            }
        case .unchanged:
            throw NFCEncodingError(
                code: "nfc_chunked_record",
                message: "unchanged records (TNF 6) only continue chunks, which are not supported")
        case .reserved:
            throw NFCEncodingError(code: "nfc_invalid_record", message: "TNF 7 is reserved")
        }
        guard type.count <= 255, identifier.count <= 255 else {
            throw NFCEncodingError(code: "nfc_invalid_record", message: "type and identifier hold at most 255 bytes")
        }
        guard UInt64(payload.count) <= UInt64(UInt32.max) else {
            throw NFCEncodingError(code: "nfc_too_large", message: "a payload holds at most 4 GiB")
        }
    }

    /// The record's bytes with the given MB and ME flags; short form when the payload fits in 255 bytes.
    func encoded(first: Bool, last: Bool) throws(NFCEncodingError) -> [UInt8] {
        try validate()
        let short = payload.count < 256
        var header = typeNameFormat.rawValue
        if first { header |= Self.messageBegin }
        if last { header |= Self.messageEnd }
        if short { header |= Self.shortRecord }
        if !identifier.isEmpty { header |= Self.identifierPresent }
        var bytes: [UInt8] = [header, UInt8(type.count)]
        if short {
            bytes.append(UInt8(payload.count))
        } else {
            let length = UInt32(payload.count)
            bytes += [
                UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            ]
        }
        if !identifier.isEmpty { bytes.append(UInt8(identifier.count)) }
        return bytes + type + identifier + payload
    }
}
