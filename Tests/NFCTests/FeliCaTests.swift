import NFC
import Testing

@Suite("FeliCa frames and transit blocks")
struct FeliCaTests {
    static let idm: [UInt8] = [0x01, 0x01, 0x06, 0x01, 0xCA, 0x0B, 0x4E, 0x21]
    static let pmm: [UInt8] = [0x03, 0x01, 0x4B, 0x02, 0x4F, 0x49, 0x93, 0xFF]

    @Test("Polling for the transit system code is 06 00 00 03 01 00")
    func polling() {
        #expect(FeliCaCommand.polling(systemCode: 0x0003, requestCode: 1).hexString == "060000030100")
    }

    @Test("reading history blocks 0–1 is the notes' 18-byte frame with the service as 0F 09")
    func readHistory() throws {
        let frame = try FeliCaCommand.readWithoutEncryption(
            idm: Self.idm, services: [TransitHistoryEntry.serviceCode],
            blocks: [FeliCaBlockElement(block: 0), FeliCaBlockElement(block: 1)])
        #expect(frame == [0x12, 0x06] + Self.idm + [0x01, 0x0F, 0x09, 0x02, 0x80, 0x00, 0x80, 0x01])
        #expect(frame.count == 18)
    }

    @Test("a block number above 255 takes the 3-byte element with a little-endian number")
    func longBlockElement() {
        #expect(FeliCaBlockElement(serviceIndex: 1, block: 0x0102).encoded == [0x01, 0x02, 0x01])
        #expect(FeliCaBlockElement(serviceIndex: 2, block: 7).encoded == [0x82, 0x07])
    }

    @Test("a Polling reply gives IDm, PMm and, when asked, the system code")
    func pollingReply() throws {
        let reply = try FeliCaPollingResponse(bytes: [0x14, 0x01] + Self.idm + Self.pmm + [0x00, 0x03])
        #expect(reply.idm == Self.idm)
        #expect(reply.pmm == Self.pmm)
        #expect(reply.systemCode == 0x0003)
        #expect(try FeliCaPollingResponse(bytes: [0x12, 0x01] + Self.idm + Self.pmm).systemCode == nil)
    }

    @Test("a reply whose length byte lies is refused at byte 0")
    func lyingLength() throws {
        let error = try #require(throws: NFCDecodingError.self) {
            try FeliCaPollingResponse(bytes: [0x13, 0x01] + Self.idm + Self.pmm)
        }
        #expect(error.offset == 0)
        #expect(error.message.contains("19"))
    }

    @Test("a read reply gives its blocks; status flags A8 give no blocks and say why")
    func readReply() throws {
        let block = TransitBalance.block(balance: 1234)
        let ok = try FeliCaReadResponse(bytes: [0x1D, 0x07] + Self.idm + [0x00, 0x00, 0x01] + block)
        #expect(ok.isSuccess)
        #expect(ok.blocks == [block])
        #expect(try TransitBalance.balance(block: ok.blocks[0]) == 1234)
        let failed = try FeliCaReadResponse(bytes: [0x0C, 0x07] + Self.idm + [0x01, 0xA8])
        #expect(!failed.isSuccess)
        #expect(failed.blocks.isEmpty)
        #expect(failed.statusDescription == "FeliCa status 01A8: illegal block number")
    }

    @Test("a read reply announcing more blocks than it carries is truncated at the count byte")
    func shortRead() throws {
        let frame: [UInt8] = [0x1D, 0x07] + Self.idm + [0x00, 0x00, 0x02] + [UInt8](repeating: 0, count: 16)
        let error = try #require(throws: NFCDecodingError.self) { try FeliCaReadResponse(bytes: frame) }
        #expect(error.code == "nfc_truncated")
        #expect(error.offset == 12)
    }

    @Test("a history block gives date, kind and little-endian balance (hand-built: 2026-11-24, fare, ¥1234)")
    func history() throws {
        // Date 26<<9 | 11<<5 | 24 = 0x3578; balance 1234 = 0x04D2 little-endian.
        let block: [UInt8] = [
            0x16, 0x01, 0x00, 0x02, 0x35, 0x78, 0xE3, 0x3A, 0xE3, 0x38, 0xD2, 0x04, 0x00, 0x00,
            0x5A, 0x00,
        ]
        let entry = try TransitHistoryEntry(block: block)
        #expect(entry.date == "2026-11-24")
        #expect(entry.kind == .fare)
        #expect(entry.balance == 1234)
        #expect(entry.serial == 0x5A)
        #expect(entry.encoded == block)
        let purchase = TransitHistoryEntry(
            terminalType: 0xC7, process: 0x46, year: 2026, month: 1, day: 2, balance: 500)
        #expect(try TransitHistoryEntry(block: purchase.encoded) == purchase)
        #expect(purchase.kind.name == "purchase")
    }

    @Test("a history block with month 13 is refused at byte 4; empty slots are skipped")
    func badHistory() throws {
        var block = [UInt8](repeating: 0, count: 16)
        block[4] = 0x35
        block[5] = 0xB8  // month 13
        let error = try #require(throws: NFCDecodingError.self) {
            try TransitHistoryEntry.entries(blocks: [[UInt8](repeating: 0, count: 16), block])
        }
        #expect(error.offset == 20)
        #expect(error.message.contains("13"))
        #expect(try TransitHistoryEntry.entries(blocks: [[UInt8](repeating: 0, count: 16)]).isEmpty)
    }

    @Test("the notes' FeliCa ATR is a FeliCa card with a valid checksum")
    func atr() throws {
        let atr = bytes(fromHex: "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 11 00 00 00 00 8A")!
        let parsed = try StorageCardATR(bytes: atr)
        #expect(parsed.technology == .felica)
        #expect(parsed.encoded == atr)
        var broken = atr
        broken[19] = 0x8B
        let error = try #require(throws: NFCDecodingError.self) { try StorageCardATR(bytes: broken) }
        #expect(error.offset == 19)
        #expect(StorageCardATR(standard: 0x03, cardName: 0x0003).technology == .type2)
        #expect(StorageCardATR(standard: 0x0B, cardName: 0x0000).technology == .iso15693)
    }
}
