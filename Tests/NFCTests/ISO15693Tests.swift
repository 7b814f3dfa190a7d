import NFC
import Testing

@Suite("ISO 15693 single-block frames")
struct ISO15693Tests {
    static let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xE0]

    @Test("read and write single block frames are 22 20 UID blk and 22 21 UID blk data")
    func frames() throws {
        #expect(try ISO15693Command.readSingleBlock(uid: Self.uid, block: 5).hexString == "22200102030405060" + "7E005")
        #expect(
            try ISO15693Command.writeSingleBlock(uid: Self.uid, block: 1, data: [0xE1, 0x40, 0x20, 0x00]).hexString
                == "22210102030405060" + "7E001E1402000")
        #expect(try ISO15693Command.lockBlock(uid: Self.uid, block: 0).hexString == "2222010203040506" + "07E000")
        #expect(throws: NFCEncodingError.self) { try ISO15693Command.readSingleBlock(uid: [1, 2], block: 0) }
    }

    @Test("an error reply carries its code: 0x10 block not available, 0x12 locked")
    func errors() throws {
        #expect(try ISO15693Response(bytes: [0x01, 0x10]) == .error(code: 0x10))
        let error = try #require(throws: NFCDecodingError.self) {
            try ISO15693Response.readBlock(bytes: [0x01, 0x12], blockSize: 4)
        }
        #expect(error.code == "nfc_tag_error")
        #expect(error.message.contains("locked"))
        #expect(try ISO15693Response.readBlock(bytes: [0x00, 1, 2, 3, 4], blockSize: 4) == [1, 2, 3, 4])
        #expect(throws: NFCDecodingError.self) { try ISO15693Response.readBlock(bytes: [0x00, 1, 2], blockSize: 4) }
        #expect(throws: NFCDecodingError.self) { try ISO15693Response(bytes: [0x01, 0x10, 0x00]) }
    }

    @Test("system information gives UID, 64 blocks of 4 bytes")
    func systemInformation() throws {
        let info = try ISO15693SystemInformation(bytes: [0x00, 0x0F] + Self.uid + [0x00, 0x00, 0x3F, 0x03, 0x01])
        #expect(info.uid == Self.uid)
        #expect(info.blockCount == 64)
        #expect(info.blockSize == 4)
    }
}
