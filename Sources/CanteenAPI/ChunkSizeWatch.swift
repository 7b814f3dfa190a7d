import Foundation
import NIOCore
import NIOHTTP1

/// Reads the chunk sizes of chunked request bodies as they arrive, in front of NIO's HTTP/1
/// decoder (which keeps them to itself), so that a chunk declaring more than the body limit
/// (`7fffffff`) is refused at once instead of being waited for until the idle timeout.
///
/// It follows the connection's bytes through the messages: a head ends at its empty line, and
/// its framing (chunked, a length, or no body) comes from the head as `ProtocolGuard` saw it
/// decoded (`expect(_:)`, in order, during the same read). Anything it does not follow (bytes
/// that are not what the decoder accepted) stops it for the connection: the decoder then answers
/// for itself.
public final class ChunkSizeWatch: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    /// How a request's body is delimited.
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked

        init(_ fields: FramingFields) {
            if fields.lastCoding == "chunked" {
                self = .chunked
            } else if let length = fields.contentLength.flatMap(Int.init), length > 0 {
                self = .length(length)
            } else {
                self = .none
            }
        }
    }

    private enum Position {
        /// Between messages (empty lines before a request line are skipped, as the decoder does).
        case idle
        /// In a head; `matched` bytes of CR LF CR LF seen.
        case head(matched: Int)
        /// In a body of known length.
        case fixed(remaining: Int)
        /// In a chunk-size line: the size so far, and whether an extension (`;…`) began.
        case size(Int, digits: Int, extensionBegun: Bool)
        case sizeLF(Int)
        case data(remaining: Int)
        case dataCR
        case dataLF
        /// In the trailer section; at the start of a line or not.
        case trailer(lineStart: Bool)
        case trailerLF(lineEmpty: Bool)
        case stopped
    }

    private let maxBodyBytes: Int
    private var position = Position.idle
    private var framings: [Framing] = []
    /// What the current chunked body has declared so far.
    private var declared = 0
    /// Called with the declared total when it exceeds the limit (once; the watch then stops).
    var onTooLarge: ((Int) -> Void)?

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// The framing of the next head the decoder delivered.
    func expect(_ framing: Framing) {
        if case .stopped = position { return }
        framings.append(framing)
    }

    /// Stops following the connection.
    func stop() {
        position = .stopped
        framings.removeAll()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        // The decoder reads the bytes first (and, through the guard, says which heads it found).
        context.fireChannelRead(data)
        if case .stopped = position { return }
        buffer.withUnsafeReadableBytes { follow($0) }
    }

    private func follow(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        while index < bytes.count {
            switch position {
            case .stopped:
                return
            case .idle:
                let byte = bytes[index]
                if byte != cr && byte != lf { position = .head(matched: 0) } else { index += 1 }
            case .head(var matched):
                while index < bytes.count, matched < 4 {
                    if matched == 0 {
                        // Most head bytes are neither CR nor LF: on to the next CR at once.
                        guard let found = memchr(bytes.baseAddress! + index, Int32(cr), bytes.count - index) else {
                            index = bytes.count
                            break
                        }
                        index = bytes.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
                        matched = 1
                        continue
                    }
                    let byte = bytes[index]
                    index += 1
                    if byte == (matched % 2 == 0 ? cr : lf) {
                        matched += 1
                    } else {
                        matched = byte == cr ? 1 : 0
                    }
                }
                position = .head(matched: matched)
                if matched == 4 { beginBody() }
            case .fixed(let remaining):
                let skipped = min(remaining, bytes.count - index)
                index += skipped
                position = remaining == skipped ? .idle : .fixed(remaining: remaining - skipped)
            case .size(let size, let digits, let extensionBegun):
                let byte = bytes[index]
                index += 1
                if byte == cr {
                    position = digits > 0 ? .sizeLF(size) : .stopped
                } else if !extensionBegun, let digit = Self.hexValue(byte) {
                    let grown = size &* 16 &+ digit
                    if declared + grown > maxBodyBytes {
                        tooLarge(declared + grown)
                    } else {
                        position = .size(grown, digits: digits + 1, extensionBegun: false)
                    }
                } else {
                    position = .size(size, digits: digits, extensionBegun: true)
                }
            case .sizeLF(let size):
                guard bytes[index] == lf else { return stop() }
                index += 1
                declared += size
                position = size == 0 ? .trailer(lineStart: true) : .data(remaining: size)
            case .data(let remaining):
                let skipped = min(remaining, bytes.count - index)
                index += skipped
                position = remaining == skipped ? .dataCR : .data(remaining: remaining - skipped)
            case .dataCR:
                guard bytes[index] == cr else { return stop() }
                index += 1
                position = .dataLF
            case .dataLF:
                guard bytes[index] == lf else { return stop() }
                index += 1
                position = .size(0, digits: 0, extensionBegun: false)
            case .trailer(let lineStart):
                let byte = bytes[index]
                index += 1
                position = byte == cr ? .trailerLF(lineEmpty: lineStart) : .trailer(lineStart: false)
            case .trailerLF(let lineEmpty):
                guard bytes[index] == lf else { return stop() }
                index += 1
                position = lineEmpty ? .idle : .trailer(lineStart: true)
            }
        }
    }

    /// A head ended: its body follows, framed as the decoder found.
    private func beginBody() {
        guard !framings.isEmpty else { return stop() }
        declared = 0
        switch framings.removeFirst() {
        case .none: position = .idle
        case .length(let length): position = .fixed(remaining: length)
        case .chunked: position = .size(0, digits: 0, extensionBegun: false)
        }
    }

    private func tooLarge(_ total: Int) {
        let report = onTooLarge
        stop()
        report?(total)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
