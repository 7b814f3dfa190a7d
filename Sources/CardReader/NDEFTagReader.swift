import NFC

// MARK: - NDEFTagImage

/// What was read of an NDEF tag: its memory from byte 0 as far as needed, and what is known of its size.
struct NDEFTagImage {
    /// The bytes read, from block or page 0.
    var memory: [UInt8]
    /// Bytes per block (4-byte pages on Type 2 tags).
    var blockSize: Int
    /// The whole memory as GET SYSTEM INFORMATION gave it (ISO 15693 only), when the reader and tag gave it.
    var reportedMemorySize: Int?
    /// Where the tag's memory ends at the latest, for `NDEFTagMemory`: the reported size, else for a Type 5 tag the
    /// smaller reading of its container's size byte (or the first block it refused); nil when only the container
    /// bounds it (Type 2).
    var memoryLimit: Int?
    /// False when the tag holds no capability container.
    var isFormatted: Bool

    /// The NDEF view of the image (throws when the container or TLVs are invalid).
    func tagMemory(_ layout: CapabilityContainer.Layout) throws(CardReaderError) -> NDEFTagMemory {
        try decode { () throws(NFCDecodingError) in
            try NDEFTagMemory(memory: memory, layout: layout, memorySize: memoryLimit)
        }
    }
}

// MARK: - NDEFTagReader

/// Reads an NDEF tag's memory through the reader: Type 2 pages 4 at a time (`FF B0 … 10`), ISO 15693 one block at
/// a time (`FF B0 … <block size>`), after GET SYSTEM INFORMATION for the block size and count. It reads only as far
/// as the first NDEF TLV (or the terminator) needs, and never asks for a block past the tag's memory.
struct NDEFTagReader {
    let card: any CardConnection
    let layout: CapabilityContainer.Layout

    func read() async throws(CardReaderError) -> NDEFTagImage {
        let info = layout == .type5 ? try await card.systemInformation() : nil
        let blockSize = info?.blockSize ?? 4
        var image = NDEFTagImage(
            memory: [], blockSize: blockSize, reportedMemorySize: info?.memorySize, memoryLimit: info?.memorySize,
            isFormatted: false)
        let (containerOffset, areaOffset) = NDEFTagMemory.offsets(layout)
        while image.memory.count < areaOffset {
            image.memory += try await read(at: image.memory.count, before: image.memoryLimit ?? Int.max, blockSize)
        }
        guard image.memory[containerOffset] == 0xE1 else { return image }
        image.isFormatted = true
        let declared = Int(image.memory[containerOffset + 2]) * 8
        if layout == .type5, image.memoryLimit == nil {
            // Unknown memory: the size byte read as the whole memory's is the reading that never overruns it.
            image.memoryLimit = declared
        }
        let areaEnd = min(areaOffset + declared, image.memoryLimit ?? Int.max)
        while image.memory.count < areaEnd {
            if let end = TagTLV.readingEnd(of: Array(image.memory[areaOffset...])),
                areaOffset + end <= image.memory.count
            {
                break
            }
            do {
                image.memory += try await read(at: image.memory.count, before: areaEnd, blockSize)
            } catch  where error.statusWord != nil && layout == .type5 && image.reportedMemorySize == nil {
                image.memoryLimit = image.memory.count  // the first block the tag refuses ends its memory
                break
            }
        }
        return image
    }

    /// The block holding byte `offset` (Type 2: up to 4 pages from it), never reading at or past `end`.
    func read(at offset: Int, before end: Int, _ blockSize: Int) async throws(CardReaderError) -> [UInt8] {
        let block = offset / blockSize
        guard block <= 0xFFFF else {
            throw CardReaderError(code: "card_unsupported", message: "the tag is larger than 65536 blocks")
        }
        let count = layout == .type2 ? max(4, min(16, end - offset)) : blockSize
        return try await card.readBinary(address: block, count: count)
    }
}
