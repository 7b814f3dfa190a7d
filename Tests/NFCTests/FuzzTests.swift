import CanteenRandom
import NFC
import Testing

@Suite("decoders survive arbitrary bytes (fixed seed)")
struct FuzzTests {
    static func mutate(_ bytes: [UInt8], random: inout SeededRandom) -> [UInt8] {
        var result = bytes
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where !result.isEmpty:
            result[Int.random(in: 0..<result.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        case 1 where !result.isEmpty:
            result.removeLast(Int.random(in: 1...result.count, using: &random))
        case 2:
            result += random.bytes(Int.random(in: 1...8, using: &random))
        default:
            result = random.bytes(Int.random(in: 0...64, using: &random))
        }
        return result
    }

    /// Either the value, or an error whose offset lies within the input.
    static func check<T>(_ input: [UInt8], _ decode: ([UInt8]) throws(NFCDecodingError) -> T) -> T? {
        do {
            return try decode(input)
        } catch {
            #expect((0...max(input.count, 20)).contains(error.offset), "\(error) for \(input.hexString)")
            #expect(error.code.hasPrefix("nfc_"))
            return nil
        }
    }

    @Test(
        "20 000 mutated inputs: each decoder returns a value that re-encodes to an equal value, or an error inside the input"
    )
    func fuzz() throws {
        var random = SeededRandom(seed: 0x4E46_4331)
        let seeds: [[UInt8]] = try [
            NDEFMessage(records: [
                URIRecord(uri: "https://example.com/o/42").record, TextRecord(text: "Order 42").record(),
            ]).encoded(),
            FeliCaPollingResponse(idm: random.bytes(8), pmm: random.bytes(8), systemCode: 3).encoded,
            FeliCaReadResponse(idm: random.bytes(8), blocks: [random.bytes(16)]).encoded,
            [0x03, 0x05, 0xD0, 0x00, 0x00, 0x00, 0x00, 0xFE],
            [0x00, 0xE1, 0x10, 0x06, 0x00, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE],
        ]
        var decoded = 0
        for iteration in 0..<20_000 {
            let input = Self.mutate(seeds[iteration % seeds.count], random: &random)
            if let message = Self.check(input, { bytes throws(NFCDecodingError) in try NDEFMessage(bytes: bytes) }) {
                decoded += 1
                #expect(try NDEFMessage(bytes: message.encoded()) == message)
                for record in message.records {
                    _ = try? URIRecord(record: record)
                    _ = try? TextRecord(record: record)
                }
            }
            if let reply = Self.check(
                input, { bytes throws(NFCDecodingError) in try FeliCaPollingResponse(bytes: bytes) })
            {
                #expect(reply.encoded == input)
            }
            if let reply = Self.check(input, { bytes throws(NFCDecodingError) in try FeliCaReadResponse(bytes: bytes) })
            {
                #expect(reply.encoded == input)
            }
            _ = Self.check(input) { bytes throws(NFCDecodingError) in try TagTLV.decode(bytes) }
            let type2 = [UInt8](repeating: 0, count: 12) + input
            _ = Self.check(type2) { bytes throws(NFCDecodingError) in
                try NDEFTagMemory(memory: bytes, layout: .type2).message()
            }
            _ = Self.check(input) { bytes throws(NFCDecodingError) in
                try NDEFTagMemory(memory: bytes, layout: .type5).message()
            }
            if input.count == 16 {
                _ = Self.check(input) { bytes throws(NFCDecodingError) in try TransitHistoryEntry(block: bytes) }
            }
            if let reply = Self.check(input, { bytes throws(NFCDecodingError) in try ISO15693Response(bytes: bytes) }) {
                #expect(reply.encoded.count <= input.count)
            }
            _ = Self.check(input) { bytes throws(NFCDecodingError) in try ISO15693SystemInformation(bytes: bytes) }
            _ = Self.check(input) { bytes throws(NFCDecodingError) in try StorageCardATR(bytes: bytes) }
        }
        #expect(decoded > 100)
    }
}
