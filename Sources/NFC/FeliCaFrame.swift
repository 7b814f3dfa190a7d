// MARK: - FeliCaCommand

/// FeliCa command frames (JIS X 6319-4): the first byte counts the whole frame, itself included.
public enum FeliCaCommand {
    /// Polling (0x00): `06 00 SCh SCl RC TSN`. Transit cards answer system code 0x0003; request code 1 asks
    /// for the system code in the reply.
    public static func polling(systemCode: UInt16 = 0xFFFF, requestCode: UInt8 = 0, timeSlots: UInt8 = 0) -> [UInt8] {
        [0x06, 0x00, UInt8(systemCode >> 8), UInt8(systemCode & 0xFF), requestCode, timeSlots]
    }

    /// Read Without Encryption (0x06) of `blocks` from `services` (codes little-endian on the wire).
    public static func readWithoutEncryption(idm: [UInt8], services: [UInt16], blocks: [FeliCaBlockElement])
        throws(NFCEncodingError) -> [UInt8]
    {
        guard idm.count == 8 else {
            throw NFCEncodingError(code: "nfc_invalid_value", message: "an IDm has 8 bytes, not \(idm.count)")
        }
        guard (1...16).contains(services.count), (1...255).contains(blocks.count) else {
            throw NFCEncodingError(code: "nfc_invalid_value", message: "read 1–16 services and 1–255 blocks")
        }
        guard blocks.allSatisfy({ Int($0.serviceIndex) < services.count }) else {
            throw NFCEncodingError(code: "nfc_invalid_value", message: "a block names a service not in the list")
        }
        var body: [UInt8] = [0x06] + idm + [UInt8(services.count)]
        for service in services { body += [UInt8(service & 0xFF), UInt8(service >> 8)] }
        body.append(UInt8(blocks.count))
        for block in blocks { body += block.encoded }
        guard body.count < 255 else {
            throw NFCEncodingError(code: "nfc_too_large", message: "the frame is longer than 254 bytes")
        }
        return [UInt8(body.count + 1)] + body
    }
}

// MARK: - FeliCaBlockElement

/// One block of a Read Without Encryption: service index and block number.
public struct FeliCaBlockElement: Hashable, Sendable {
    /// Index into the command's service list (0–15).
    public var serviceIndex: UInt8
    public var block: UInt16

    public init(serviceIndex: UInt8 = 0, block: UInt16) {
        self.serviceIndex = serviceIndex & 0x0F
        self.block = block
    }

    /// 2 bytes `1000 ssss, block` when the block number fits a byte, else 3 bytes with the number little-endian.
    public var encoded: [UInt8] {
        block <= 0xFF
            ? [0x80 | serviceIndex, UInt8(block)]
            : [serviceIndex, UInt8(block & 0xFF), UInt8(block >> 8)]
    }
}

// MARK: - FeliCaPollingResponse

/// A Polling reply: `LEN 01 IDm(8) PMm(8) [RD(2)]`.
public struct FeliCaPollingResponse: Hashable, Sendable {
    public var idm: [UInt8]
    public var pmm: [UInt8]
    /// The system code, when the command asked for it (request code 1).
    public var systemCode: UInt16?

    public init(idm: [UInt8], pmm: [UInt8], systemCode: UInt16? = nil) {
        self.idm = idm
        self.pmm = pmm
        self.systemCode = systemCode
    }

    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        var cursor = ByteCursor(bytes)
        let length = try cursor.u8("frame length")
        guard Int(length) == bytes.count else {
            throw .invalid("the length byte says \(length), the frame has \(bytes.count) bytes", at: 0)
        }
        let code = try cursor.u8("response code")
        guard code == 0x01 else { throw .invalid("response code 0x\([code].hexString) is not Polling's 01", at: 1) }
        idm = try cursor.take(8, "IDm")
        pmm = try cursor.take(8, "PMm")
        systemCode = cursor.isAtEnd ? nil : try cursor.u16BE("request data")
        try cursor.expectEnd("the Polling reply")
    }

    public var encoded: [UInt8] {
        let body: [UInt8] = [0x01] + idm + pmm + (systemCode.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? [])
        return [UInt8(body.count + 1)] + body
    }
}

// MARK: - FeliCaReadResponse

/// A Read Without Encryption reply: `LEN 07 IDm SF1 SF2 [nBlk data(16·n)]`; status flag 1 ≠ 0 is an error and
/// carries no blocks.
public struct FeliCaReadResponse: Hashable, Sendable {
    public var idm: [UInt8]
    public var statusFlag1: UInt8
    public var statusFlag2: UInt8
    /// The 16-byte blocks, in the order asked.
    public var blocks: [[UInt8]]

    public init(idm: [UInt8], statusFlag1: UInt8 = 0, statusFlag2: UInt8 = 0, blocks: [[UInt8]]) {
        self.idm = idm
        self.statusFlag1 = statusFlag1
        self.statusFlag2 = statusFlag2
        self.blocks = blocks
    }

    public var isSuccess: Bool { statusFlag1 == 0 }

    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        var cursor = ByteCursor(bytes)
        let length = try cursor.u8("frame length")
        guard Int(length) == bytes.count else {
            throw .invalid("the length byte says \(length), the frame has \(bytes.count) bytes", at: 0)
        }
        let code = try cursor.u8("response code")
        guard code == 0x07 else {
            throw .invalid("response code 0x\([code].hexString) is not Read Without Encryption's 07", at: 1)
        }
        idm = try cursor.take(8, "IDm")
        statusFlag1 = try cursor.u8("status flag 1")
        statusFlag2 = try cursor.u8("status flag 2")
        blocks = []
        if statusFlag1 == 0 {
            let countOffset = cursor.position
            let count = Int(try cursor.u8("block count"))
            guard cursor.remaining == 16 * count else {
                throw NFCDecodingError(
                    code: cursor.remaining < 16 * count ? "nfc_truncated" : "nfc_invalid_value", offset: countOffset,
                    message: "\(count) blocks need \(16 * count) bytes, the frame has \(cursor.remaining)")
            }
            for index in 0..<count { blocks.append(try cursor.take(16, "block \(index)")) }
        }
        try cursor.expectEnd("the Read Without Encryption reply")
    }

    public var encoded: [UInt8] {
        var body: [UInt8] = [0x07] + idm + [statusFlag1, statusFlag2]
        if statusFlag1 == 0 { body += [UInt8(blocks.count)] + blocks.flatMap { $0 } }
        return [UInt8(body.count + 1)] + body
    }

    /// What the status flags mean, for error messages (JIS X 6319-4 status flag 2 codes).
    public var statusDescription: String {
        let meaning: String =
            switch statusFlag2 {
            case 0x00: "success"
            case 0xA1: "illegal number of services"
            case 0xA2: "illegal number of blocks"
            case 0xA6: "illegal service code list"
            case 0xA7: "illegal block list (access mode)"
            case 0xA8: "illegal block number"
            case 0xA9: "write failed"
            case 0xB1, 0xB2: "service needs authentication"
            default: "status 0x\([statusFlag2].hexString)"
            }
        return "FeliCa status \([statusFlag1, statusFlag2].hexString): \(meaning)"
    }
}
