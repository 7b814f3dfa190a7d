import NFC

/// NFC decoders: a value decoded from bytes encodes back to an equal value (or the same bytes
/// for fixed frames); an error points inside the input.
enum NFCFuzz {
    static func run(_ input: [UInt8]) {
        if let message = decode(input, { bytes throws(NFCDecodingError) in try NDEFMessage(bytes: bytes) }) {
            if let encoded = try? message.encoded() {
                FuzzCheck.require(
                    (try? NDEFMessage(bytes: encoded)) == message, "NDEF message does not survive its encoding")
            }
            for record in message.records {
                _ = try? URIRecord(record: record)
                _ = try? TextRecord(record: record)
            }
        }
        if let reply = decode(input, { bytes throws(NFCDecodingError) in try FeliCaPollingResponse(bytes: bytes) }) {
            FuzzCheck.require(reply.encoded == input, "FeliCa polling response does not encode to its bytes")
        }
        if let reply = decode(input, { bytes throws(NFCDecodingError) in try FeliCaReadResponse(bytes: bytes) }) {
            FuzzCheck.require(reply.encoded == input, "FeliCa read response does not encode to its bytes")
        }
        _ = decode(input) { bytes throws(NFCDecodingError) in try TagTLV.decode(bytes) }
        for layout in [CapabilityContainer.Layout.type2, .type5] {
            let offsets = NDEFTagMemory.offsets(layout)
            let memory = [UInt8](repeating: 0, count: offsets.container) + input
            if let tag = decode(
                memory, { bytes throws(NFCDecodingError) in try NDEFTagMemory(memory: bytes, layout: layout) })
            {
                _ = decode(memory) { _ throws(NFCDecodingError) in try tag.message() }
            }
        }
        if input.count >= 16 {
            let block = Array(input.prefix(16))
            if let entry = decode(block, { bytes throws(NFCDecodingError) in try TransitHistoryEntry(block: bytes) }) {
                FuzzCheck.require(
                    (try? TransitHistoryEntry(block: entry.encoded)) == entry,
                    "transit history entry does not survive its encoding")
            }
        }
        if let reply = decode(input, { bytes throws(NFCDecodingError) in try ISO15693Response(bytes: bytes) }) {
            FuzzCheck.require(reply.encoded.count <= input.count, "ISO 15693 response longer than its bytes")
        }
        _ = decode(input) { bytes throws(NFCDecodingError) in try ISO15693SystemInformation(bytes: bytes) }
        if let atr = decode(input, { bytes throws(NFCDecodingError) in try StorageCardATR(bytes: bytes) }) {
            FuzzCheck.require((try? StorageCardATR(bytes: atr.encoded)) == atr, "ATR does not survive its encoding")
        }
    }

    /// The value, or nil after checking that the error points inside the input.
    static func decode<T>(_ input: [UInt8], _ body: ([UInt8]) throws(NFCDecodingError) -> T) -> T? {
        do {
            return try body(input)
        } catch {
            FuzzCheck.require(
                (0...max(input.count, 20)).contains(error.offset), "\(error) points outside \(input.count) bytes")
            FuzzCheck.require(error.code.hasPrefix("nfc_"), "error code \(error.code)")
            return nil
        }
    }
}
