// MARK: - NDEFTagMemory

/// The NDEF view of a tag's memory: capability container, TLVs and the NDEF message they hold.
///
/// Type 2 memory starts at page 0 (UID, lock bytes, CC in page 3, data area from byte 16); Type 5 (ISO 15693)
/// memory starts at block 0 (CC in bytes 0–3, data area from byte 4).
public struct NDEFTagMemory: Hashable, Sendable {
    public var capabilityContainer: CapabilityContainer
    /// Offset of the data area in the memory.
    public var dataAreaOffset: Int
    /// Size of the data area in bytes: what the container's size byte says, but never past the tag's memory.
    public var dataAreaSize: Int
    /// The TLVs found, with offsets into the memory.
    public var tlvs: [TagTLV.Located]

    /// Offset of the capability container and of the data area for a layout.
    public static func offsets(_ layout: CapabilityContainer.Layout) -> (container: Int, dataArea: Int) {
        layout == .type2 ? (12, 16) : (0, 4)
    }

    /// Reads the memory; it may be shorter than the data area only when the TLVs end first (a terminator, or the
    /// first NDEF TLV). `memorySize` is the tag's whole memory in bytes, when known: the data area ends there
    /// at the latest. A Type 5 container's size byte is read either way tags are formatted: as the size of the area
    /// after the container (NFC Forum), or of the whole memory, container included (NXP's ICODE and ST's ST25
    /// tools: `E1 40 0E` on 112 bytes); the area ends at the container's end or at the memory's, whichever first.
    public init(memory: [UInt8], layout: CapabilityContainer.Layout, memorySize: Int? = nil)
        throws(NFCDecodingError)
    {
        let (containerOffset, areaOffset) = Self.offsets(layout)
        guard memory.count >= areaOffset else {
            throw .truncated(
                "\(layout == .type2 ? "Type 2" : "Type 5") header", at: 0, needed: areaOffset, available: memory.count)
        }
        let container = try CapabilityContainer(
            bytes: Array(memory[containerOffset..<(containerOffset + 4)]), layout: layout, offset: containerOffset)
        dataAreaSize = max(0, min(container.dataAreaSize, (memorySize ?? Int.max) - areaOffset))
        let areaEnd = min(memory.count, areaOffset + dataAreaSize)
        capabilityContainer = container
        dataAreaOffset = areaOffset
        tlvs = try TagTLV.decode(Array(memory[areaOffset..<areaEnd]), base: areaOffset, stopAfterNDEF: true)
    }

    /// The first NDEF TLV, if any.
    public var ndefTLV: TagTLV.Located? {
        tlvs.first { if case .ndef = $0.tlv { true } else { false } }
    }

    /// The NDEF message of the first NDEF TLV; no records when the TLV is empty or missing.
    public func message() throws(NFCDecodingError) -> NDEFMessage {
        guard let located = ndefTLV, case .ndef(let bytes) = located.tlv else { return NDEFMessage(records: []) }
        do {
            return try NDEFMessage(bytes: bytes)
        } catch {
            var shifted = error
            shifted.offset += located.valueOffset
            throw shifted
        }
    }

    /// Where the NDEF TLV starts, relative to the data area: after lock and memory control TLVs kept in place.
    var ndefStart: Int {
        if let located = ndefTLV { return located.offset - dataAreaOffset }
        var offset = 0
        for located in tlvs {
            switch located.tlv {
            case .lockControl, .memoryControl, .null:
                offset = located.offset - dataAreaOffset + ((try? located.tlv.encoded().count) ?? 1)
            default:
                return offset
            }
        }
        return offset
    }

    /// The largest NDEF message the tag can hold, in bytes (what Core NFC's `queryNDEFStatus` calls capacity).
    public var capacity: Int {
        Self.capacity(available: dataAreaSize - ndefStart)
    }

    static func capacity(available: Int) -> Int {
        max(0, max(min(available - 2, 254), available - 4))
    }

    /// The bytes to write from the start of the data area so that it holds `message`, and the byte range of
    /// the NDEF TLV's length field. Throws when the message is larger than `capacity`.
    public func writePlan(for message: [UInt8]) throws(NFCEncodingError) -> NDEFWritePlan {
        guard capabilityContainer.isWritable else {
            throw NFCEncodingError(code: "nfc_read_only", message: "the tag is read-only (capability container)")
        }
        guard message.count <= capacity else {
            throw NFCEncodingError(
                code: "nfc_too_large",
                message: "the message needs \(message.count) bytes, the tag holds at most \(capacity)")
        }
        var image: [UInt8] = []
        for located in tlvs where located.offset - dataAreaOffset < ndefStart {
            image += try located.tlv.encoded()
        }
        image += Array(repeating: 0, count: ndefStart - image.count)
        let header = TagTLV.lengthField(message.count, tag: 0x03)
        let lengthRange = (image.count + 1)..<(image.count + header.count)
        image += header + message
        if image.count < dataAreaSize { image.append(0xFE) }
        return NDEFWritePlan(dataAreaOffset: dataAreaOffset, image: image, lengthRange: lengthRange)
    }
}

// MARK: - NDEFWritePlan

/// What to write to put a message on a tag, so that a removal mid-write leaves an empty NDEF TLV, never a
/// partial message: first `placeholder` (the image with the TLV length zero), then the blocks holding the
/// length with their final bytes.
public struct NDEFWritePlan: Hashable, Sendable {
    /// Offset of the image in the tag memory.
    public var dataAreaOffset: Int
    /// The bytes of the data area from its start.
    public var image: [UInt8]
    /// Where the NDEF TLV's length lies in the image.
    public var lengthRange: Range<Int>

    /// The image with the NDEF length set to zero (in the same 1- or 3-byte form).
    public var placeholder: [UInt8] {
        var bytes = image
        for index in lengthRange { bytes[index] = index == lengthRange.lowerBound && lengthRange.count == 3 ? 0xFF : 0 }
        return bytes
    }

    /// Block writes in order for a tag of `blockSize`-byte blocks, with `current` the memory as read (for the
    /// bytes of partial blocks kept unchanged): every block of the placeholder, then the length blocks again.
    public func blockWrites(blockSize: Int, current: [UInt8]) -> [(block: Int, bytes: [UInt8])] {
        func blocks(from bytes: [UInt8], only: Set<Int>?) -> [(block: Int, bytes: [UInt8])] {
            let start = dataAreaOffset
            let end = dataAreaOffset + bytes.count
            var writes: [(block: Int, bytes: [UInt8])] = []
            for block in (start / blockSize)...((end - 1) / blockSize) {
                if let only, !only.contains(block) { continue }
                var content: [UInt8] = []
                for address in (block * blockSize)..<((block + 1) * blockSize) {
                    if address >= start, address < end {
                        content.append(bytes[address - start])
                    } else {
                        content.append(address < current.count ? current[address] : 0)
                    }
                }
                writes.append((block, content))
            }
            return writes
        }
        let lengthBlocks = Set(lengthRange.map { (dataAreaOffset + $0) / blockSize })
        return blocks(from: placeholder, only: nil) + blocks(from: image, only: lengthBlocks)
    }
}
