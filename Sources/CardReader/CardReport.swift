import NFC

// MARK: - CardReport

/// What `canteen nfc read` shows of a card: technology, identifier, NDEF content and status, transit balance
/// and history.
public struct CardReport: Hashable, Sendable, Encodable {
    /// One NDEF record, with its URI or text when it is one.
    public struct Record: Hashable, Sendable, Encodable {
        public var tnf: String
        public var type: String
        public var id: String?
        public var payload: String
        public var uri: String?
        public var text: String?
        public var language: String?

        init(_ record: NDEFRecord) {
            tnf = record.typeNameFormat.name
            type = record.typeText
            id = record.identifier.isEmpty ? nil : record.identifier.hexString
            payload = record.payload.hexString
            uri = try? URIRecord(record: record).uri
            let text = try? TextRecord(record: record)
            self.text = text?.text
            language = text?.language
        }
    }

    /// An amount in minor units and its ISO 4217 currency.
    public struct Amount: Hashable, Sendable, Encodable {
        public var minorUnits: Int64
        public var currency: String
    }

    /// One transit history entry.
    public struct HistoryEntry: Hashable, Sendable, Encodable {
        public var date: String
        public var kind: String
        public var balance: Amount
    }

    /// As Core NFC's `NFCNDEFStatus`.
    public enum NDEFStatus: String, Hashable, Sendable, Encodable {
        case readWrite = "read-write"
        case readOnly = "read-only"
        case notSupported = "not-supported"
    }

    public var technology: StorageCardATR.Technology
    public var identifier: String
    public var ndef: [Record]
    public var ndefStatus: NDEFStatus
    /// The largest NDEF message the tag holds, in bytes (0 when NDEF is not supported).
    public var capacity: Int
    public var balance: Amount?
    public var history: [HistoryEntry]
}
