// MARK: - TextRecord

/// A well-known Text record (type `T`): status byte, language code, then text in UTF-8 or UTF-16.
public struct TextRecord: Hashable, Sendable {
    /// The text's encoding, bit 7 of the status byte.
    public enum Encoding: String, Hashable, Sendable, Codable {
        case utf8 = "UTF-8"
        case utf16 = "UTF-16"
    }

    public var text: String
    /// An IANA language code such as `en` or `ja-JP` (ASCII, at most 63 bytes).
    public var language: String
    public var encoding: Encoding

    public init(text: String, language: String = "en", encoding: Encoding = .utf8) {
        self.text = text
        self.language = language
        self.encoding = encoding
    }

    /// The record type `T`.
    public static let type: [UInt8] = [0x54]

    /// The record; UTF-16 text is written big-endian after a byte-order mark.
    public func record() throws(NFCEncodingError) -> NDEFRecord {
        let languageBytes = Array(language.utf8)
        guard languageBytes.count <= 63, languageBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw NFCEncodingError(
                code: "nfc_invalid_record", message: "language code \"\(language)\" must be 0–63 ASCII characters")
        }
        var payload: [UInt8] = [UInt8(languageBytes.count) | (encoding == .utf16 ? 0x80 : 0)]
        payload += languageBytes
        switch encoding {
        case .utf8:
            payload += text.utf8
        case .utf16:
            payload += [0xFE, 0xFF]
            for unit in text.utf16 { payload += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        }
        return NDEFRecord(typeNameFormat: .wellKnown, type: Self.type, payload: payload)
    }

    /// Reads a Text record; offsets in errors count from the payload's first byte. UTF-16 without a
    /// byte-order mark is big-endian.
    public init(record: NDEFRecord) throws(NFCDecodingError) {
        guard record.typeNameFormat == .wellKnown, record.type == Self.type else {
            throw NFCDecodingError(
                code: "nfc_wrong_record_type", offset: 0,
                message: "not a Text record: TNF \(record.typeNameFormat.name), type \"\(record.typeText)\"")
        }
        var cursor = ByteCursor(record.payload)
        let status = try cursor.u8("Text status byte")
        guard status & 0x40 == 0 else { throw .invalid("Text status bit 6 is reserved and set", at: 0) }
        let languageBytes = try cursor.take(Int(status & 0x3F), "language code")
        guard languageBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalid("the language code is not printable ASCII", at: 1)
        }
        language = String(decoding: languageBytes, as: UTF8.self)
        let textOffset = cursor.position
        let body = try cursor.take(cursor.remaining, "text")
        if status & 0x80 == 0 {
            encoding = .utf8
            if let bad = firstInvalidUTF8Offset(body) {
                throw .invalid("the text is not valid UTF-8", at: textOffset + bad)
            }
            text = String(decoding: body, as: UTF8.self)
        } else {
            encoding = .utf16
            guard body.count % 2 == 0 else {
                throw .invalid("UTF-16 text has an odd number of bytes (\(body.count))", at: textOffset)
            }
            var bigEndian = true
            var start = 0
            if body.count >= 2 {
                if body[0] == 0xFE, body[1] == 0xFF { start = 2 }
                if body[0] == 0xFF, body[1] == 0xFE { start = 2; bigEndian = false }
            }
            var units: [UInt16] = []
            var index = start
            while index < body.count {
                let high = bigEndian ? body[index] : body[index + 1]
                let low = bigEndian ? body[index + 1] : body[index]
                units.append(UInt16(high) << 8 | UInt16(low))
                index += 2
            }
            var decoded = ""
            var iterator = units.makeIterator()
            var parser = Unicode.UTF16.ForwardParser()
            var unitOffset = 0
            loop: while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid(let scalar):
                    decoded.unicodeScalars.append(Unicode.UTF16.decode(scalar))
                    unitOffset += scalar.count
                case .emptyInput:
                    break loop
                case .error:
                    throw .invalid(
                        "the text is not valid UTF-16 (lone surrogate)", at: textOffset + start + 2 * unitOffset)
                }
            }
            text = decoded
        }
    }
}
