// MARK: - NDEFMessage

/// An NDEF message: records from the one flagged MB to the one flagged ME.
public struct NDEFMessage: Hashable, Sendable {
    public var records: [NDEFRecord]

    public init(records: [NDEFRecord]) {
        self.records = records
    }

    /// The message's bytes. No records encode to no bytes (an empty NDEF TLV).
    public func encoded() throws(NFCEncodingError) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, record) in records.enumerated() {
            bytes += try record.encoded(first: index == 0, last: index == records.count - 1)
        }
        return bytes
    }

    /// Decodes a whole message; no bytes give no records. Chunked records (CF) are refused, and bytes
    /// after the record flagged ME are an error.
    public init(bytes: [UInt8]) throws(NFCDecodingError) {
        var cursor = ByteCursor(bytes)
        var records: [NDEFRecord] = []
        while !cursor.isAtEnd {
            let start = cursor.position
            let header = try cursor.u8("record header")
            let isFirst = records.isEmpty
            if isFirst, header & NDEFRecord.messageBegin == 0 {
                throw .invalid("the first record lacks the message-begin flag (MB)", at: start)
            }
            if !isFirst, header & NDEFRecord.messageBegin != 0 {
                throw .invalid("record \(records.count + 1) sets message-begin (MB) inside a message", at: start)
            }
            if header & NDEFRecord.chunkFlag != 0 {
                throw NFCDecodingError(
                    code: "nfc_chunked_record", offset: start,
                    message: "record \(records.count + 1) is chunked (CF set); chunked records are not supported")
            }
            guard let format = NDEFTypeNameFormat(rawValue: header & 0x07) else {
                throw .invalid("bad type name format", at: start)
            }
            let typeLength = Int(try cursor.u8("type length"))
            let payloadLength: Int
            let lengthOffset = cursor.position
            if header & NDEFRecord.shortRecord != 0 {
                payloadLength = Int(try cursor.u8("payload length"))
            } else {
                payloadLength = Int(try cursor.u32BE("4-byte payload length"))
            }
            let identifierLength =
                header & NDEFRecord.identifierPresent != 0 ? Int(try cursor.u8("identifier length")) : 0
            switch format {
            case .empty:
                guard typeLength == 0, identifierLength == 0, payloadLength == 0 else {
                    throw .invalid("an empty record (TNF 0) has a type, identifier or payload length", at: start)
                }
            case .wellKnown, .media, .absoluteURI, .external:
                guard typeLength > 0 else {
                    throw .invalid("a \(format.name) record (TNF \(format.rawValue)) has type length 0", at: start + 1)
                }
            case .unknown:
                guard typeLength == 0 else {
                    throw .invalid("an unknown record (TNF 5) has type length \(typeLength), must be 0", at: start + 1)
                }
            case .unchanged:
                throw NFCDecodingError(
                    code: "nfc_chunked_record", offset: start,
                    message: "an unchanged record (TNF 6) continues a chunk; chunked records are not supported")
            case .reserved:
                throw .invalid("type name format 7 is reserved", at: start)
            }
            let available = cursor.remaining
            guard typeLength + identifierLength + payloadLength <= available else {
                throw NFCDecodingError(
                    code: "nfc_truncated", offset: lengthOffset,
                    message:
                        "record \(records.count + 1) declares \(typeLength + identifierLength + payloadLength) bytes of type, identifier and payload, only \(available) left"
                )
            }
            let type = try cursor.take(typeLength, "record type")
            let identifier = try cursor.take(identifierLength, "record identifier")
            let payload = try cursor.take(payloadLength, "record payload")
            records.append(
                NDEFRecord(typeNameFormat: format, type: type, identifier: identifier, payload: payload))
            if header & NDEFRecord.messageEnd != 0 {
                try cursor.expectEnd("the record flagged message-end (ME)")
                self.records = records
                return
            }
        }
        if !records.isEmpty {
            throw NFCDecodingError(
                code: "nfc_truncated", offset: cursor.position,
                message: "the message ends without a record flagged message-end (ME)")
        }
        self.records = records
    }
}
