import NFC

// MARK: - NDEFTagReader

/// Reads an NDEF tag's memory through the reader: Type 2 pages 4 at a time (`FF B0 … 10`), ISO 15693 blocks
/// of 4 bytes (`FF B0 … 04`).
struct NDEFTagReader {
    let card: any CardConnection
    let layout: CapabilityContainer.Layout

    var blockSize: Int { 4 }
    var readSize: Int { layout == .type2 ? 16 : 4 }

    /// The memory from page/block 0 to the end of the data area; nil when the tag holds no capability container.
    func readMemory() async throws(CardReaderError) -> [UInt8]? {
        var memory = try await card.readBinary(address: 0, count: UInt8(readSize))
        let (containerOffset, areaOffset) = NDEFTagMemory.offsets(layout)
        while memory.count < areaOffset { memory += try await read(at: memory.count) }
        guard memory[containerOffset] == 0xE1 else { return nil }
        let end = areaOffset + Int(memory[containerOffset + 2]) * 8
        while memory.count < end { memory += try await read(at: memory.count) }
        return Array(memory.prefix(end))
    }

    func read(at offset: Int) async throws(CardReaderError) -> [UInt8] {
        let block = offset / blockSize
        guard block <= 0xFF else {
            throw CardReaderError(code: "card_unsupported", message: "the tag is larger than 256 blocks")
        }
        return try await card.readBinary(address: UInt8(block), count: UInt8(readSize))
    }
}
