import NFC

// MARK: - NDEFTagWriter

/// Writes an NDEF message to a Type 2 or ISO 15693 tag, verifies it by reading it back and optionally makes the
/// tag read-only. The NDEF length is written last, so a tag removed mid-write holds an empty message, never a
/// partial one; a message too large for the tag is refused before anything is written.
public struct NDEFTagWriter: Sendable {
    public init() {}

    public func write(_ message: NDEFMessage, to card: any CardConnection, lock: Bool) async throws(CardReaderError)
        -> CardReport
    {
        let technology = CardInspector.technology(atr: card.atr)
        let layout: CapabilityContainer.Layout
        switch technology {
        case .type2: layout = .type2
        case .iso15693: layout = .type5
        default:
            throw CardReaderError(
                code: "card_unsupported",
                message: "a \(technology.rawValue) card cannot hold a coupon (NTAG or ISO 15693 can)")
        }
        let reader = NDEFTagReader(card: card, layout: layout)
        guard var memory = try await reader.readMemory() else {
            throw CardReaderError(
                code: "card_unsupported", message: "the tag is not NDEF formatted (no capability container)")
        }
        let tag = try decode { () throws(NFCDecodingError) in try NDEFTagMemory(memory: memory, layout: layout) }
        let bytes = try decodeEncoding { () throws(NFCEncodingError) in try message.encoded() }
        guard tag.capabilityContainer.isWritable else {
            throw CardReaderError(code: "tag_read_only", message: "the tag is read-only")
        }
        guard bytes.count <= tag.capacity else {
            throw CardReaderError(
                code: "tag_too_small",
                message:
                    "the message needs \(bytes.count) bytes, the tag holds at most \(tag.capacity); nothing was written"
            )
        }
        let plan = try decodeEncoding { () throws(NFCEncodingError) in try tag.writePlan(for: bytes) }
        do {
            for write in plan.blockWrites(blockSize: 4, current: memory) {
                let range = (write.block * 4)..<(write.block * 4 + 4)
                if range.upperBound <= memory.count, Array(memory[range]) == write.bytes { continue }
                try await card.updateBinary(address: UInt8(write.block), data: write.bytes)
                if range.upperBound <= memory.count { memory.replaceSubrange(range, with: write.bytes) }
            }
        } catch  where error.code == "card_removed" || error.code == "card_error" {
            throw CardReaderError(
                code: "card_removed",
                message:
                    "writing stopped (\(error.message)); the tag holds an empty NDEF message or its old one, not a partial one: tap it again",
                status: error.status)
        }
        var report = try await CardInspector().report(card)
        let readBack = report.ndef
        guard readBack == message.records.map(CardReport.Record.init) else {
            throw CardReaderError(code: "verify_failed", message: "the tag read back differs from what was written")
        }
        if lock {
            try await makeReadOnly(card, tag: tag, layout: layout)
            report = try await CardInspector().report(card)
            guard report.ndefStatus == .readOnly else {
                throw CardReaderError(code: "verify_failed", message: "the tag still reports read-write after locking")
            }
        }
        return report
    }

    /// Type 2: capability container access 0F, then static lock bytes (page 2) and, for NTAG213/215/216, the
    /// dynamic lock bytes; ISO 15693: the Type 5 CC's write access set to never (`E1 43`).
    func makeReadOnly(_ card: any CardConnection, tag: NDEFTagMemory, layout: CapabilityContainer.Layout)
        async throws(CardReaderError)
    {
        var container = tag.capabilityContainer
        container.isWritable = false
        switch layout {
        case .type2:
            try await card.updateBinary(address: 3, data: container.encoded)
            let dynamicLockPage: UInt8? =
                switch container.dataAreaSize / 8 {
                case 0x12: 0x28
                case 0x3E: 0x82
                case 0x6D: 0xE2
                default: nil
                }
            if let dynamicLockPage {
                try await card.updateBinary(address: dynamicLockPage, data: [0xFF, 0xFF, 0xFF, 0x00])
            }
            try await card.updateBinary(address: 2, data: [0x00, 0x00, 0xFF, 0xFF])
        case .type5:
            try await card.updateBinary(address: 0, data: container.encoded)
        }
    }
}
