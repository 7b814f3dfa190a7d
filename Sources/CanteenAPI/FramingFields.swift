import Foundation
import NIOHTTP1

/// The header fields a request head is framed and judged by (`Host`, `Transfer-Encoding`,
/// `Content-Length`, `Expect`), read in one pass over the head for `ProtocolGuard` and
/// `ChunkSizeWatch`: each `HTTPHeaders` lookup by name is a pass of its own, comparing every name
/// and building an array.
struct FramingFields {
    /// How many `Host` fields.
    var hosts = 0
    /// How many `Transfer-Encoding` fields.
    var transferEncodings = 0
    /// Every coding of every `Transfer-Encoding` field, in order, trimmed and lowercased.
    var codings: [String] = []
    /// The last coding of the last `Transfer-Encoding` field (nil: that field names none).
    var lastCoding: String?
    /// The first `Content-Length` value.
    var contentLength: String?
    /// Every `Expect` value, trimmed and lowercased.
    var expectations: [String] = []

    init(_ headers: HTTPHeaders) {
        for (name, value) in headers {
            if Self.name(name, is: "host") {
                hosts += 1
            } else if Self.name(name, is: "content-length") {
                if contentLength == nil { contentLength = value }
            } else if Self.name(name, is: "transfer-encoding") {
                transferEncodings += 1
                let named = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                codings += named
                lastCoding = named.last
            } else if Self.name(name, is: "expect") {
                expectations.append(value.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
    }

    /// Whether a field's name is `lowercase`, ignoring ASCII case (as `HTTPHeaders` compares).
    static func name(_ name: String, is lowercase: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard name.utf8.count == expected.count else { return false }
        var index = 0
        for byte in name.utf8 {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == expected[index] else { return false }
            index += 1
        }
        return true
    }
}
