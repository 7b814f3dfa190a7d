import NFC

// MARK: - CardInspector

/// Reads a card in the field into a `CardReport`: NDEF tags (Type 2, ISO 15693) and FeliCa transit cards.
public struct CardInspector: Sendable {
    public init() {}

    /// The technology the reader's ATR names (unknown when it is not a PC/SC storage-card ATR).
    public static func technology(atr: [UInt8]) -> StorageCardATR.Technology {
        (try? StorageCardATR(bytes: atr))?.technology ?? .unknown
    }

    public func report(_ card: any CardConnection) async throws(CardReaderError) -> CardReport {
        let technology = Self.technology(atr: card.atr)
        let identifier = try await card.identifier()
        // An ISO 15693 UID comes least significant byte first; it is shown as its label and ISO/IEC 15693-3 write it.
        let shown = technology == .iso15693 ? ISO15693UID.labelOrder(identifier) : identifier
        var report = CardReport(
            technology: technology, identifier: shown.hexString, ndef: [], ndefStatus: .notSupported,
            capacity: 0, balance: nil, history: [])
        switch technology {
        case .type2, .iso15693:
            let layout: CapabilityContainer.Layout = technology == .type2 ? .type2 : .type5
            let image = try await NDEFTagReader(card: card, layout: layout).read()
            guard image.isFormatted else { return report }
            let tag = try image.tagMemory(layout)
            let message = try decode { () throws(NFCDecodingError) in try tag.message() }
            report.ndef = message.records.map(CardReport.Record.init)
            report.ndefStatus = tag.capabilityContainer.isWritable ? .readWrite : .readOnly
            report.capacity = tag.capacity
        case .felica:
            try await readTransit(card, idm: identifier, into: &report)
        default:
            break
        }
        return report
    }

    /// Balance (0x008B block 0) and the first 10 history blocks (0x090F); a card without these services keeps
    /// no balance.
    func readTransit(_ card: any CardConnection, idm: [UInt8], into report: inout CardReport)
        async throws(CardReaderError)
    {
        guard idm.count == 8 else { return }
        let balanceFrame = try decodeEncoding { () throws(NFCEncodingError) in
            try FeliCaCommand.readWithoutEncryption(
                idm: idm, services: [TransitBalance.serviceCode], blocks: [FeliCaBlockElement(block: 0)])
        }
        let balanceBytes: [UInt8]
        do {
            balanceBytes = try await card.feliCa(balanceFrame)
        } catch  where error.statusWord != nil {
            // The reader refused the pass-through by status word: it has none of the ACR122U kind (e.g. an
            // RC-S300), so the identifier is all there is. An exchange that failed (the card taken away) is thrown.
            return
        }
        let balanceReply = try decode { () throws(NFCDecodingError) in try FeliCaReadResponse(bytes: balanceBytes) }
        guard balanceReply.isSuccess, let block = balanceReply.blocks.first else { return }
        let yen = try decode { () throws(NFCDecodingError) in try TransitBalance.balance(block: block) }
        report.balance = CardReport.Amount(minorUnits: yen, currency: "JPY")
        let historyFrame = try decodeEncoding { () throws(NFCEncodingError) in
            try FeliCaCommand.readWithoutEncryption(
                idm: idm, services: [TransitHistoryEntry.serviceCode],
                blocks: (0..<10).map { FeliCaBlockElement(block: $0) })
        }
        let historyBytes = try await card.feliCa(historyFrame)
        let historyReply = try decode { () throws(NFCDecodingError) in try FeliCaReadResponse(bytes: historyBytes) }
        guard historyReply.isSuccess else {
            throw CardReaderError(code: "card_error", message: "reading the history: \(historyReply.statusDescription)")
        }
        let entries = try decode { () throws(NFCDecodingError) in
            try TransitHistoryEntry.entries(blocks: historyReply.blocks)
        }
        report.history = entries.map {
            CardReport.HistoryEntry(
                date: $0.date, kind: $0.kind.name, balance: CardReport.Amount(minorUnits: $0.balance, currency: "JPY"))
        }
    }
}

/// Runs a decoder, turning its error into a card error that names the offset.
func decode<T>(_ body: () throws(NFCDecodingError) -> T) throws(CardReaderError) -> T {
    do {
        return try body()
    } catch {
        throw CardReaderError(code: "card_data_invalid", message: "the card's data is invalid \(error) [\(error.code)]")
    }
}

func decodeEncoding<T>(_ body: () throws(NFCEncodingError) -> T) throws(CardReaderError) -> T {
    do {
        return try body()
    } catch {
        throw CardReaderError(
            code: error.code == "nfc_too_large" ? "tag_too_small" : "card_error", message: error.message)
    }
}
