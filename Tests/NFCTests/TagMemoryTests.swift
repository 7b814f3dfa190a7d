import NFC
import Testing

@Suite("Type 2 and Type 5 tag memory")
struct TagMemoryTests {
    /// An NTAG215 as it leaves the factory: 135 pages, CC E1 10 3E 00, data area `03 00 FE`.
    static func ntag215(data: [UInt8] = [0x03, 0x00, 0xFE]) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: 135 * 4)
        memory[0..<12] = [0x04, 0x12, 0x34, 0xB8, 0x56, 0x78, 0x9A, 0xBC, 0x08, 0x48, 0x00, 0x00]
        memory[12..<16] = [0xE1, 0x10, 0x3E, 0x00]
        memory[16..<(16 + data.count)] = ArraySlice(data)
        return memory
    }

    @Test("a blank NTAG215 holds an empty message, is writable and holds 500 bytes")
    func blank() throws {
        let memory = try NDEFTagMemory(memory: Self.ntag215(), layout: .type2)
        #expect(memory.capabilityContainer.dataAreaSize == 496)
        #expect(memory.capabilityContainer.isWritable)
        #expect(try memory.message().records.isEmpty)
        #expect(memory.capacity == 492)
    }

    @Test("a lock control TLV before the message is skipped and kept by the write plan")
    func lockControl() throws {
        let message = try NDEFMessage(records: [URIRecord(uri: "https://example.com/o/42").record]).encoded()
        let data: [UInt8] = [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, UInt8(message.count)] + message + [0xFE]
        let memory = try NDEFTagMemory(memory: Self.ntag215(data: data), layout: .type2)
        #expect(try memory.message().records.count == 1)
        #expect(memory.tlvs.first?.tlv == .lockControl([0xA0, 0x10, 0x44]))
        let plan = try memory.writePlan(for: message)
        #expect(plan.image == data)
        #expect(plan.lengthRange == 6..<7)
        #expect(memory.capacity == 496 - 5 - 4)
    }

    @Test("a message over 254 bytes takes the 3-byte length FF HH LL, zeroed in the placeholder")
    func longLength() throws {
        let memory = try NDEFTagMemory(memory: Self.ntag215(), layout: .type2)
        let record = NDEFRecord(
            typeNameFormat: .media, type: Array("text/plain".utf8), payload: [UInt8](repeating: 0x41, count: 300))
        let message = try NDEFMessage(records: [record]).encoded()
        let plan = try memory.writePlan(for: message)
        #expect(Array(plan.image.prefix(4)) == [0x03, 0xFF, 0x01, UInt8(message.count - 256)])
        #expect(Array(plan.placeholder.prefix(4)) == [0x03, 0xFF, 0x00, 0x00])
        #expect(plan.image.last == 0xFE)
        let writes = plan.blockWrites(blockSize: 4, current: Self.ntag215())
        #expect(writes.first?.block == 4)
        #expect(writes.first?.bytes == [0x03, 0xFF, 0x00, 0x00])
        #expect(writes.last?.block == 4)
        #expect(writes.last?.bytes == [0x03, 0xFF, 0x01, UInt8(message.count - 256)])
        // Written in that order, the tag reads back the message.
        var tag = Self.ntag215()
        for write in writes { tag[(write.block * 4)..<(write.block * 4 + 4)] = ArraySlice(write.bytes) }
        #expect(try NDEFTagMemory(memory: tag, layout: .type2).message().records == [record])
    }

    @Test("stopping after the placeholder leaves an empty message, never a partial one")
    func interrupted() throws {
        let memory = try NDEFTagMemory(memory: Self.ntag215(), layout: .type2)
        let message = try NDEFMessage(records: [URIRecord(uri: "https://canteen.example/c/1").record]).encoded()
        let writes = try memory.writePlan(for: message).blockWrites(blockSize: 4, current: Self.ntag215())
        var tag = Self.ntag215()
        for write in writes.dropLast() { tag[(write.block * 4)..<(write.block * 4 + 4)] = ArraySlice(write.bytes) }
        #expect(try NDEFTagMemory(memory: tag, layout: .type2).message().records.isEmpty)
    }

    @Test("a message larger than the tag is refused before any write")
    func tooLarge() throws {
        let memory = try NDEFTagMemory(memory: Self.ntag215(), layout: .type2)
        let error = try #require(throws: NFCEncodingError.self) {
            try memory.writePlan(for: [UInt8](repeating: 0, count: 493))
        }
        #expect(error.code == "nfc_too_large")
        #expect(error.message.contains("492"))
    }

    @Test("a read-only CC (access 0F) refuses the write plan; an unformatted tag names byte 12")
    func readOnlyAndUnformatted() throws {
        var locked = Self.ntag215()
        locked[15] = 0x0F
        let memory = try NDEFTagMemory(memory: locked, layout: .type2)
        #expect(!memory.capabilityContainer.isWritable)
        #expect(throws: NFCEncodingError.self) { try memory.writePlan(for: [0xD0, 0x00, 0x00]) }
        var blank = Self.ntag215()
        blank[12] = 0
        let error = try #require(throws: NFCDecodingError.self) { try NDEFTagMemory(memory: blank, layout: .type2) }
        #expect(error.code == "nfc_not_formatted")
        #expect(error.offset == 12)
    }

    @Test("a TLV running past the data area is refused at its tag byte")
    func overrun() throws {
        let error = try #require(throws: NFCDecodingError.self) {
            try NDEFTagMemory(memory: Self.ntag215(data: [0x00, 0x00, 0xFD, 0xFF, 0x02, 0x00]), layout: .type2)
        }
        #expect(error.code == "nfc_truncated")
        #expect(error.offset == 18)
    }

    @Test("TLVs encode with 1- and 3-byte lengths and decode back")
    func tlvRoundTrip() throws {
        let tlvs: [TagTLV] = [
            .null, .lockControl([1, 2, 3]), .memoryControl([4, 5, 6]),
            .ndef([UInt8](repeating: 7, count: 254)), .ndef([UInt8](repeating: 8, count: 255)),
            .proprietary([9]), .other(tag: 0x10, value: []), .terminator,
        ]
        let bytes = try TagTLV.encode(tlvs)
        #expect(Array(bytes[11..<13]) == [0x03, 0xFE])
        #expect(Array(bytes[267..<271]) == [0x03, 0xFF, 0x00, 0xFF])
        #expect(try TagTLV.decode(bytes).map(\.tlv) == tlvs)
    }

    @Test("a Type 5 tag keeps its CC in block 0; E1 43 is read-only")
    func type5() throws {
        var memory = [UInt8](repeating: 0, count: 64 * 4)
        memory[0..<7] = [0xE1, 0x40, 0x20, 0x00, 0x03, 0x00, 0xFE]
        let tag = try NDEFTagMemory(memory: memory, layout: .type5)
        #expect(tag.capabilityContainer.dataAreaSize == 256)
        #expect(tag.capacity == 254)
        #expect(tag.capabilityContainer.isWritable)
        var readOnly = tag.capabilityContainer
        readOnly.isWritable = false
        #expect(readOnly.encoded == [0xE1, 0x43, 0x20, 0x00])
    }
}
