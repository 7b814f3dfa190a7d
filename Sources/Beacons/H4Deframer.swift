// MARK: - H4Deframer

/// Splits a byte stream in H4 framing (indicator byte, header, payload) into whole packets.
public struct H4Deframer: Sendable {
    /// Why the stream cannot be framed any further.
    public struct FramingError: Error, Hashable, Sendable, CustomStringConvertible {
        public var code: String { "h4_unknown_packet_type" }
        /// The byte found where a packet indicator was expected.
        public var indicator: UInt8
        public var description: String {
            "H4 stream out of sync: unknown packet indicator 0x\(String(indicator, radix: 16, uppercase: true))"
        }
    }

    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Adds received bytes.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet (indicator byte included), nil when more bytes are needed.
    public mutating func nextPacket() throws(FramingError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= 1 else { return nil }
        guard let type = H4PacketType(rawValue: buffer[start]) else {
            throw FramingError(indicator: buffer[start])
        }
        let headerLength = type.headerLength
        guard available >= 1 + headerLength else { return nil }
        let payloadLength = buffer.withUnsafeBytes { raw in
            type.payloadLength(header: UnsafeRawBufferPointer(rebasing: raw[(start + 1)..<(start + 1 + headerLength)]))
        }
        let total = 1 + headerLength + payloadLength
        guard available >= total else { return nil }
        let packet = Array(buffer[start..<(start + total)])
        start += total
        if start > 4096 {
            buffer.removeFirst(start)
            start = 0
        }
        return packet
    }
}
