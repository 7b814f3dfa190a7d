// MARK: - URIRecord

/// A well-known URI record (type `U`): a prefix code from the NFC Forum table, then the rest of the URI in UTF-8.
public struct URIRecord: Hashable, Sendable {
    public var uri: String

    public init(uri: String) {
        self.uri = uri
    }

    /// The record type `U`.
    public static let type: [UInt8] = [0x55]

    /// The NFC Forum RTD URI prefix table: code 0x00 (no prefix) to 0x23; later codes are reserved.
    public static let prefixes: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://", "dav://",
        "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:", "btspp://",
        "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:", "urn:epc:tag:",
        "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    /// The record, abbreviated with the longest matching prefix.
    public var record: NDEFRecord {
        var best = 0
        for (code, prefix) in Self.prefixes.enumerated()
        where !prefix.isEmpty && uri.hasPrefix(prefix) && prefix.count > Self.prefixes[best].count {
            best = code
        }
        let rest = uri.utf8.dropFirst(Self.prefixes[best].utf8.count)
        return NDEFRecord(typeNameFormat: .wellKnown, type: Self.type, payload: [UInt8(best)] + rest)
    }

    /// Reads a URI record; offsets in errors count from the payload's first byte.
    public init(record: NDEFRecord) throws(NFCDecodingError) {
        guard record.typeNameFormat == .wellKnown, record.type == Self.type else {
            throw NFCDecodingError(
                code: "nfc_wrong_record_type", offset: 0,
                message: "not a URI record: TNF \(record.typeNameFormat.name), type \"\(record.typeText)\"")
        }
        var cursor = ByteCursor(record.payload)
        let code = try cursor.u8("URI prefix code")
        guard Int(code) < Self.prefixes.count else {
            throw .invalid("URI prefix code 0x\([code].hexString) is reserved (0x00–0x23 are defined)", at: 0)
        }
        let rest = try cursor.take(cursor.remaining, "URI")
        guard let text = String(validating: rest, as: UTF8.self) else {
            throw .invalid("the URI is not valid UTF-8", at: 1 + (firstInvalidUTF8Offset(rest) ?? 0))
        }
        uri = Self.prefixes[Int(code)] + text
    }
}

/// The offset of the first byte that breaks UTF-8, or nil when the bytes are valid.
func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
    var offset = 0
    while offset < bytes.count {
        let lead = bytes[offset]
        let length: Int
        switch lead {
        case 0x00...0x7F: length = 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return offset
        }
        guard offset + length <= bytes.count,
            String(validating: bytes[offset..<(offset + length)], as: UTF8.self) != nil
        else { return offset }
        offset += length
    }
    return nil
}
