import NFC

// MARK: - NDEFTagWriter

/// Writes an NDEF message to a Type 2 or ISO 15693 tag, verifies it by reading it back and optionally makes the
/// tag read-only. The NDEF length is written last, so a tag removed mid-write holds an empty message, never a
/// partial one; a message too large for the tag is refused before anything is written.
public struct NDEFTagWriter: Sendable {
    public init() {}

    /// Writes `message`. A blank ISO 15693 tag (block 0 all zero) is formatted first, with a Type 5 container sized
    /// from GET SYSTEM INFORMATION; `announce` is told so before anything is written.
    public func write(
        _ message: NDEFMessage, to card: any CardConnection, lock: Bool, announce: (String) -> Void = { _ in }
    ) async throws(CardReaderError) -> CardReport {
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
        var image = try await NDEFTagReader(card: card, layout: layout).read()
        let formatting = image.isFormatted ? nil : try Self.format(&image, layout: layout)
        var memory = image.memory
        let tag = try image.tagMemory(layout)
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
        let size = image.blockSize
        do {
            if let formatting {
                announce(formatting.notice)
                for (block, data) in formatting.writes.reversed() {  // the container last
                    try await card.updateBinary(address: block, data: data)
                }
            }
            for write in plan.blockWrites(blockSize: size, current: memory) {
                let range = (write.block * size)..<(write.block * size + size)
                if formatting == nil, range.upperBound <= memory.count, Array(memory[range]) == write.bytes {
                    continue
                }
                try await card.updateBinary(address: write.block, data: write.bytes)
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
            try await makeReadOnly(card, tag: tag, layout: layout, block0: Array(memory.prefix(size)))
            report = try await CardInspector().report(card)
            guard report.ndefStatus == .readOnly else {
                throw CardReaderError(code: "verify_failed", message: "the tag still reports read-write after locking")
            }
        }
        return report
    }

    /// Type 2: capability container access 0F, then static lock bytes (page 2) and, for NTAG213/215/216, the
    /// dynamic lock bytes; ISO 15693: the Type 5 CC's write access set to never (`E1 43`).
    func makeReadOnly(
        _ card: any CardConnection, tag: NDEFTagMemory, layout: CapabilityContainer.Layout, block0: [UInt8]
    ) async throws(CardReaderError) {
        var container = tag.capabilityContainer
        container.isWritable = false
        switch layout {
        case .type2:
            try await card.updateBinary(address: 3, data: container.encoded)
            let dynamicLockPage: Int? =
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
            try await card.updateBinary(address: 0, data: container.encoded + block0.dropFirst(4))
        }
    }

    /// The blocks that format a blank ISO 15693 tag (block 0 all zero): a Type 5 container whose size byte counts
    /// the whole memory, as NXP and ST format their tags (`E1 40 0E 00` on 28 blocks of 4), then an empty NDEF
    /// TLV. `image` becomes the formatted tag. A tag that is not blank, or whose size the reader cannot tell, is
    /// refused.
    static func format(_ image: inout NDEFTagImage, layout: CapabilityContainer.Layout) throws(CardReaderError)
        -> (notice: String, writes: [(block: Int, data: [UInt8])])
    {
        let blank = image.memory.prefix(4).allSatisfy { $0 == 0 }
        guard layout == .type5, blank else {
            throw CardReaderError(
                code: "card_unsupported",
                message: "the tag is not NDEF formatted (no capability container, block 0 is "
                    + "\(image.memory.prefix(4).hexString)) and is not blank, so it is not formatted either")
        }
        guard let memorySize = image.reportedMemorySize, memorySize >= 16 else {
            throw CardReaderError(
                code: "card_unsupported",
                message: "the tag is blank, but the reader gave no GET SYSTEM INFORMATION to size its container")
        }
        let container = CapabilityContainer(layout: .type5, dataAreaSize: min(memorySize, 0xFF * 8))
        var bytes = container.encoded + [0x03, 0x00, 0xFE]
        bytes += Array(repeating: 0, count: (image.blockSize - bytes.count % image.blockSize) % image.blockSize)
        let writes = stride(from: 0, to: bytes.count, by: image.blockSize).map {
            (block: $0 / image.blockSize, data: Array(bytes[$0..<($0 + image.blockSize)]))
        }
        image.memory = bytes
        image.isFormatted = true
        image.memoryLimit = memorySize
        let blocks = memorySize / image.blockSize
        let notice =
            "formatting the blank ISO 15693 tag: Type 5 capability container \(container.encoded.hexString) "
            + "(\(memorySize) bytes: \(blocks) blocks of \(image.blockSize))"
        return (notice, writes)
    }
}
