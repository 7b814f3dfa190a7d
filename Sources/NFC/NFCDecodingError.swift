// MARK: - NFCDecodingError

/// Why bytes could not be read as an NFC structure: a stable code, the offset of the bad byte and what was wrong.
public struct NFCDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifier, e.g. `nfc_truncated`, `nfc_chunked_record`, `nfc_invalid_value`.
    public var code: String
    /// Offset of the offending byte, counted from the start of the decoded buffer.
    public var offset: Int
    public var message: String

    public init(code: String, offset: Int, message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "at byte \(offset): \(message)" }

    static func truncated(_ what: String, at offset: Int, needed: Int, available: Int) -> NFCDecodingError {
        NFCDecodingError(
            code: "nfc_truncated", offset: offset,
            message: "\(what) needs \(needed) byte\(needed == 1 ? "" : "s"), only \(available) left")
    }

    static func invalid(_ message: String, at offset: Int) -> NFCDecodingError {
        NFCDecodingError(code: "nfc_invalid_value", offset: offset, message: message)
    }
}

// MARK: - NFCEncodingError

/// Why a value could not be encoded: it does not fit the format or the tag.
public struct NFCEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifier, e.g. `nfc_too_large`, `nfc_invalid_record`.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
