import NFC
import Testing

/// Type 5 capability containers as tag makers write them (issue 32): the size byte counts the area after the
/// container (NFC Forum) or the whole memory, container included (NXP ICODE, ST25).
@Suite("Type 5 containers, both readings of the size byte")
struct Type5ContainerTests {
    /// A Type 5 memory of `size` bytes: `container`, then `03 00 FE`.
    static func tag(_ container: [UInt8], size: Int) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: size)
        memory[0..<7] = ArraySlice(container + [0x03, 0x00, 0xFE])
        return memory
    }

    @Test(
        "the data area ends at the container's end or the memory's, whichever first",
        arguments: [
            // NXP ICODE SLIX, 28 blocks of 4: 0E × 8 = 112 = the whole memory.
            ([0xE1, 0x40, 0x0E, 0x01], 112, 108, 106),
            // ST25 with 512 bytes: 40 × 8 = 512 = the whole memory.
            ([0xE1, 0x40, 0x40, 0x01], 512, 508, 504),
            // The NFC Forum reading on the same sizes: the area after the container.
            ([0xE1, 0x40, 0x0D, 0x00], 112, 104, 102),
            ([0xE1, 0x40, 0x1F, 0x00], 256, 248, 246),
        ] as [([UInt8], Int, Int, Int)])
    func bothReadings(container: [UInt8], memorySize: Int, area: Int, capacity: Int) throws {
        let tag = try NDEFTagMemory(
            memory: Self.tag(container, size: memorySize), layout: .type5, memorySize: memorySize)
        #expect(tag.capabilityContainer.dataAreaSize == Int(container[2]) * 8)
        #expect(tag.dataAreaSize == area)
        #expect(tag.capacity == capacity)
        #expect(try tag.message().records.isEmpty)
    }

    @Test("an ICODE SLIX's container E1 40 0E 01: version 1.0, writable, MBREAD flag kept")
    func slixContainer() throws {
        let container = try CapabilityContainer(bytes: [0xE1, 0x40, 0x0E, 0x01], layout: .type5)
        #expect(container.version == 0x40)
        #expect(container.isWritable)
        #expect(container.dataAreaSize == 112)
        #expect(container.lastByte == 0x01)
        #expect(container.encoded == [0xE1, 0x40, 0x0E, 0x01])
        var locked = container
        locked.isWritable = false
        #expect(locked.encoded == [0xE1, 0x43, 0x0E, 0x01])
        #expect(try !CapabilityContainer(bytes: [0xE1, 0x43, 0x0E, 0x01], layout: .type5).isWritable)
    }

    @Test("a container naming no read access, another mapping version or no magic is refused with its offset")
    func badContainers() throws {
        let noRead = try #require(throws: NFCDecodingError.self) {
            try CapabilityContainer(bytes: [0xE1, 0x44, 0x0E, 0x00], layout: .type5)
        }
        #expect(noRead.offset == 1)
        #expect(noRead.message.contains("read access"))
        let version = try #require(throws: NFCDecodingError.self) {
            try CapabilityContainer(bytes: [0xE1, 0x80, 0x0E, 0x00], layout: .type5)
        }
        #expect(version.message.contains("version 2"))
        let blank = try #require(throws: NFCDecodingError.self) {
            try CapabilityContainer(bytes: [0x00, 0x00, 0x00, 0x00], layout: .type5)
        }
        #expect(blank.code == "nfc_not_formatted")
        #expect(throws: NFCDecodingError.self) { try CapabilityContainer(bytes: [0xE1, 0x40], layout: .type5) }
    }

    @Test("a message filling an ICODE SLIX to its last byte is read; one byte more is refused by the write plan")
    func fillsToTheLastByte() throws {
        var memory = Self.tag([0xE1, 0x40, 0x0E, 0x01], size: 112)
        let payload = [UInt8](repeating: 0x6B, count: 106 - 4)  // header, type length, payload length, type
        let message = try NDEFMessage(records: [NDEFRecord(typeNameFormat: .media, type: [0x61], payload: payload)])
            .encoded()
        #expect(message.count == 106)
        let tag = try NDEFTagMemory(memory: memory, layout: .type5, memorySize: 112)
        let plan = try tag.writePlan(for: message)
        #expect(plan.image.count == 108)  // 03 6A + 106 bytes, no room for the terminator
        for write in plan.blockWrites(blockSize: 4, current: memory) {
            #expect(write.block < 28)
            memory[(write.block * 4)..<(write.block * 4 + 4)] = ArraySlice(write.bytes)
        }
        let read = try NDEFTagMemory(memory: memory, layout: .type5, memorySize: 112)
        #expect(try read.message().records.first?.payload == payload)
        let error = try #require(throws: NFCEncodingError.self) { try tag.writePlan(for: message + [0]) }
        #expect(error.code == "nfc_too_large")
    }

    @Test("a TLV declaring more than the memory holds is truncated, at its offset")
    func overlongTLV() throws {
        var memory = Self.tag([0xE1, 0x40, 0x0E, 0x01], size: 112)
        memory[4..<6] = [0x03, 0x6B]  // 107 bytes: one past the last block
        let error = try #require(throws: NFCDecodingError.self) {
            try NDEFTagMemory(memory: memory, layout: .type5, memorySize: 112)
        }
        #expect(error.code == "nfc_truncated")
        #expect(error.offset == 4)
    }

    @Test(
        "how far to read: past the first NDEF TLV or the terminator, nil while the bytes read cannot tell",
        arguments: [
            ([0x03, 0x00, 0xFE], 2),
            ([0xFE], 1),
            ([0x00, 0x00, 0x03, 0x05], 9),
            ([0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x10], 23),
            ([0x03, 0xFF, 0x01, 0x00], 260),
            ([0x02, 0x03, 0x01, 0x02, 0x03, 0xFE], 6),
        ] as [([UInt8], Int)])
    func readingEnd(area: [UInt8], end: Int) {
        #expect(TagTLV.readingEnd(of: area) == end)
    }

    @Test(
        "how far to read is unknown until the NDEF TLV's length is read",
        arguments: [
            [], [0x00], [0x03], [0x03, 0xFF], [0x03, 0xFF, 0x01], [0x01, 0x03, 0xA0],
        ] as [[UInt8]])
    func readingEndUnknown(area: [UInt8]) {
        #expect(TagTLV.readingEnd(of: area) == nil)
    }

    @Test("an ISO 15693 UID is shown E0 first; one already so, or of another length, is kept")
    func labelOrder() {
        let air: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x08, 0x01, 0x04, 0xE0]
        #expect(ISO15693UID.labelOrder(air) == [0xE0, 0x04, 0x01, 0x08, 0x12, 0x34, 0x56, 0x78])
        #expect(ISO15693UID.labelOrder(air.reversed()) == air.reversed())
        #expect(ISO15693UID.labelOrder([0x01, 0xE0]) == [0x01, 0xE0])
        #expect(ISO15693UID.labelOrder([0xE0, 1, 2, 3, 4, 5, 6, 0xE0]) == [0xE0, 1, 2, 3, 4, 5, 6, 0xE0])
    }

    @Test("GET SYSTEM INFORMATION from a reader, with or without the response flags: 28 blocks of 4 = 112 bytes")
    func systemInformation() throws {
        let uid: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x08, 0x01, 0x04, 0xE0]
        let reply: [UInt8] = [0x0F] + uid + [0x00, 0x00, 0x1B, 0x03, 0x01]
        for bytes in [[0x00] + reply, reply] {
            let info = try ISO15693SystemInformation(readerReply: bytes)
            #expect(info.uid == uid)
            #expect(info.blockCount == 28)
            #expect(info.blockSize == 4)
            #expect(info.memorySize == 112)
        }
        let noSize = try ISO15693SystemInformation(readerReply: [0x00, 0x00] + uid)
        #expect(noSize.memorySize == nil)
        #expect(throws: NFCDecodingError.self) { try ISO15693SystemInformation(readerReply: [0x01, 0x0F]) }
        #expect(throws: NFCDecodingError.self) { try ISO15693SystemInformation(readerReply: [0x00, 0x0F] + uid) }
    }
}
