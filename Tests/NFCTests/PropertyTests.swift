import CanteenRandom
import NFC
import Testing

@Suite("encode then decode gives back what went in (seeded)")
struct PropertyTests {
    static func randomRecord(_ random: inout SeededRandom) -> NDEFRecord {
        let format = [NDEFTypeNameFormat.empty, .wellKnown, .media, .absoluteURI, .external, .unknown]
            .randomElement(using: &random)!
        if format == .empty { return .empty }
        let type = format == .unknown ? [] : random.bytes(Int.random(in: 1...20, using: &random))
        let identifier = Bool.random(using: &random) ? random.bytes(Int.random(in: 1...12, using: &random)) : []
        let length = [0, 1, 255, 256, Int.random(in: 0...1200, using: &random)].randomElement(using: &random)!
        return NDEFRecord(typeNameFormat: format, type: type, identifier: identifier, payload: random.bytes(length))
    }

    @Test("500 random NDEF messages round-trip; short records exactly when the payload is under 256 bytes")
    func messages() throws {
        var random = SeededRandom(seed: 13)
        for _ in 0..<500 {
            let records = (0..<Int.random(in: 1...5, using: &random)).map { _ in Self.randomRecord(&random) }
            let bytes = try NDEFMessage(records: records).encoded()
            #expect(try NDEFMessage(bytes: bytes).records == records)
            #expect((bytes[0] & 0x10 != 0) == (records[0].payload.count < 256))
            #expect(bytes[0] & 0x80 != 0)
        }
    }

    @Test("random URIs and texts (UTF-8 and UTF-16, astral characters) round-trip")
    func urisAndTexts() throws {
        var random = SeededRandom(seed: 14)
        let alphabet = Array("abcXYZ09:/.-_~?=&é日本𝄞 ")
        for _ in 0..<300 {
            let prefix = URIRecord.prefixes.randomElement(using: &random)!
            let uri =
                prefix
                + String(
                    (0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(try URIRecord(record: URIRecord(uri: uri).record).uri == uri)
            let text = TextRecord(
                text: String(
                    (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }),
                language: ["en", "ja", "fr-CH", ""].randomElement(using: &random)!,
                encoding: Bool.random(using: &random) ? .utf8 : .utf16)
            #expect(try TextRecord(record: text.record()) == text)
        }
    }

    @Test("random FeliCa replies, history blocks, ISO 15693 replies and ATRs round-trip")
    func frames() throws {
        var random = SeededRandom(seed: 15)
        for _ in 0..<300 {
            let idm = random.bytes(8)
            let polling = FeliCaPollingResponse(
                idm: idm, pmm: random.bytes(8),
                systemCode: Bool.random(using: &random) ? UInt16.random(in: 0...0xFFFF, using: &random) : nil)
            #expect(try FeliCaPollingResponse(bytes: polling.encoded) == polling)
            let read = FeliCaReadResponse(
                idm: idm, blocks: (0..<Int.random(in: 0...12, using: &random)).map { _ in random.bytes(16) })
            #expect(try FeliCaReadResponse(bytes: read.encoded) == read)
            let entry = TransitHistoryEntry(
                terminalType: UInt8.random(in: 0...255, using: &random),
                process: UInt8.random(in: 0...255, using: &random),
                year: Int.random(in: 2000...2127, using: &random), month: Int.random(in: 1...12, using: &random),
                day: Int.random(in: 1...31, using: &random), balance: Int64.random(in: 0...65535, using: &random),
                serial: UInt32.random(in: 0...0xFFFFFF, using: &random),
                region: UInt8.random(in: 0...255, using: &random),
                stations: random.bytes(4))
            #expect(try TransitHistoryEntry(block: entry.encoded) == entry)
            let balance = Int64.random(in: 0...65535, using: &random)
            #expect(try TransitBalance.balance(block: TransitBalance.block(balance: balance)) == balance)
            let reply: ISO15693Response =
                Bool.random(using: &random)
                ? .success(data: random.bytes(4)) : .error(code: UInt8.random(in: 0...255, using: &random))
            #expect(try ISO15693Response(bytes: reply.encoded) == reply)
            let atr = StorageCardATR(
                standard: UInt8.random(in: 0...255, using: &random),
                cardName: UInt16.random(in: 0...0xFFFF, using: &random))
            #expect(try StorageCardATR(bytes: atr.encoded) == atr)
        }
    }

    @Test("write plans for random messages on random tags read back the message")
    func writePlans() throws {
        var random = SeededRandom(seed: 16)
        for _ in 0..<200 {
            let layout: CapabilityContainer.Layout = Bool.random(using: &random) ? .type2 : .type5
            let areaSize = 8 * Int.random(in: 6...120, using: &random)
            let (containerOffset, areaOffset) = NDEFTagMemory.offsets(layout)
            var memory = [UInt8](repeating: 0, count: areaOffset + areaSize)
            memory[containerOffset..<(containerOffset + 4)] = ArraySlice(
                CapabilityContainer(layout: layout, dataAreaSize: areaSize).encoded)
            memory[areaOffset..<(areaOffset + 3)] = [0x03, 0x00, 0xFE]
            let tag = try NDEFTagMemory(memory: memory, layout: layout)
            let records = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                NDEFRecord(
                    typeNameFormat: .media, type: [0x61], payload: random.bytes(Int.random(in: 0...300, using: &random))
                )
            }
            let message = try NDEFMessage(records: records).encoded()
            guard message.count <= tag.capacity else {
                #expect(throws: NFCEncodingError.self) { try tag.writePlan(for: message) }
                continue
            }
            for write in try tag.writePlan(for: message).blockWrites(blockSize: 4, current: memory) {
                memory[(write.block * 4)..<(write.block * 4 + 4)] = ArraySlice(write.bytes)
            }
            #expect(memory.count == areaOffset + areaSize)
            #expect(try NDEFTagMemory(memory: memory, layout: layout).message().records == records)
        }
    }
}
