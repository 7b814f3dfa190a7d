// MARK: - ISO15693Command

/// ISO 15693 request frames, addressed (flags 0x22: high data rate, addressed): `flags cmd UID(8, LSB first) …`.
public enum ISO15693Command {
    public static let addressedFlags: UInt8 = 0x22

    /// READ SINGLE BLOCK (0x20).
    public static func readSingleBlock(uid: [UInt8], block: UInt8) throws(NFCEncodingError) -> [UInt8] {
        try header(0x20, uid: uid) + [block]
    }

    /// WRITE SINGLE BLOCK (0x21).
    public static func writeSingleBlock(uid: [UInt8], block: UInt8, data: [UInt8]) throws(NFCEncodingError)
        -> [UInt8]
    {
        guard (1...32).contains(data.count) else {
            throw NFCEncodingError(code: "nfc_invalid_value", message: "a block holds 1–32 bytes, not \(data.count)")
        }
        return try header(0x21, uid: uid) + [block] + data
    }

    /// LOCK BLOCK (0x22).
    public static func lockBlock(uid: [UInt8], block: UInt8) throws(NFCEncodingError) -> [UInt8] {
        try header(0x22, uid: uid) + [block]
    }

    /// GET SYSTEM INFORMATION (0x2B).
    public static func getSystemInformation(uid: [UInt8]) throws(NFCEncodingError) -> [UInt8] {
        try header(0x2B, uid: uid)
    }

    static func header(_ command: UInt8, uid: [UInt8]) throws(NFCEncodingError) -> [UInt8] {
        guard uid.count == 8 else {
            throw NFCEncodingError(code: "nfc_invalid_value", message: "an ISO 15693 UID has 8 bytes, not \(uid.count)")
        }
        return [addressedFlags, command] + uid
    }
}

// MARK: - ISO15693Response

/// An ISO 15693 reply: flags, then data, or, with flag bit 0 set, an error code.
public enum ISO15693Response: Hashable, Sendable {
    case success(data: [UInt8])
    case error(code: UInt8)

    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        var cursor = ByteCursor(bytes)
        let flags = try cursor.u8("response flags")
        if flags & 0x01 != 0 {
            let code = try cursor.u8("error code")
            try cursor.expectEnd("the error code")
            self = .error(code: code)
        } else {
            self = .success(data: try cursor.take(cursor.remaining, "data"))
        }
    }

    public var encoded: [UInt8] {
        switch self {
        case .success(let data): [0x00] + data
        case .error(let code): [0x01, code]
        }
    }

    /// What an error code means (ISO 15693-3 table 7).
    public static func describe(code: UInt8) -> String {
        switch code {
        case 0x01: "command not supported"
        case 0x02: "command not recognised"
        case 0x03: "option not supported"
        case 0x0F: "unknown error"
        case 0x10: "block not available"
        case 0x11: "block already locked"
        case 0x12: "block locked, cannot be changed"
        case 0x13: "block not programmed"
        case 0x14: "block not locked"
        default: "error 0x\([code].hexString)"
        }
    }

    /// The data of a READ SINGLE BLOCK reply of `blockSize` bytes.
    public static func readBlock(bytes: [UInt8], blockSize: Int) throws(NFCDecodingError) -> [UInt8] {
        switch try ISO15693Response(bytes: bytes) {
        case .error(let code):
            throw NFCDecodingError(
                code: "nfc_tag_error", offset: 1, message: "the tag answered \(describe(code: code))")
        case .success(let data):
            guard data.count == blockSize else {
                throw NFCDecodingError(
                    code: data.count < blockSize ? "nfc_truncated" : "nfc_invalid_value", offset: 1,
                    message: "a block of \(blockSize) bytes expected, \(data.count) received")
            }
            return data
        }
    }
}

// MARK: - ISO15693SystemInformation

/// A GET SYSTEM INFORMATION reply: UID and, when present, block count and size.
public struct ISO15693SystemInformation: Hashable, Sendable {
    public var uid: [UInt8]
    public var blockCount: Int?
    public var blockSize: Int?

    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        guard case .success(let data) = try ISO15693Response(bytes: bytes) else {
            throw NFCDecodingError(code: "nfc_tag_error", offset: 0, message: "the tag answered an error")
        }
        var cursor = ByteCursor(data, base: 1)
        let info = try cursor.u8("information flags")
        uid = try cursor.take(8, "UID")
        if info & 0x01 != 0 { _ = try cursor.u8("DSFID") }
        if info & 0x02 != 0 { _ = try cursor.u8("AFI") }
        if info & 0x04 != 0 {
            blockCount = Int(try cursor.u8("block count")) + 1
            blockSize = Int(try cursor.u8("block size") & 0x1F) + 1
        }
        if info & 0x08 != 0 { _ = try cursor.u8("IC reference") }
        try cursor.expectEnd("the system information")
    }

    /// A reader's answer to GET SYSTEM INFORMATION: the tag's reply with its response flags, or (as some readers
    /// give it) without them.
    public init(readerReply bytes: [UInt8]) throws(NFCDecodingError) {
        do {
            try self.init(bytes: bytes)
        } catch {
            guard let flagless = try? Self(bytes: [0x00] + bytes) else { throw error }
            self = flagless
        }
    }

    /// The tag's memory in bytes (block count times block size), when the reply gave them.
    public var memorySize: Int? {
        guard let blockCount, let blockSize else { return nil }
        return blockCount * blockSize
    }
}
