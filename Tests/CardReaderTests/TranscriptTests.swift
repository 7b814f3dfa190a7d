import CardReader
import NFC
import Testing

@Suite("card reading and writing on transcripts")
struct TranscriptTests {
    static let feliCaATR = bytes(fromHex: "3B8F8001804F0CA0000003060" + "3F011000000008A")!
    static let ntagATR = StorageCardATR(standard: 0x03, cardName: 0x0003).encoded
    static let idm = "01010601CA0B4E21"

    @Test("a FeliCa transit card: FF CA, then 0x008B block 0 and 10 history blocks through D4 40 01")
    func feliCa() async throws {
        let balance = TransitBalance.block(balance: 980).hexString
        let entry = TransitHistoryEntry(terminalType: 0xC7, process: 0x46, year: 2026, month: 11, day: 24, balance: 980)
        let history = entry.encoded.hexString + String(repeating: "00", count: 16 * 9)
        let card = TranscriptCard(
            atr: Self.feliCaATR,
            steps: [
                ("FFCA000000", Self.idm + "9000"),
                (
                    "FF00000013D44001" + "10" + "06" + Self.idm + "018B000180" + "00",
                    "D54100" + "1D07" + Self.idm + "000001" + balance + "9000"
                ),
                (
                    "FF00000025D44001" + "22" + "06" + Self.idm + "010F090A"
                        + (0..<10).map { "80" + [UInt8($0)].hexString }.joined(),
                    "D54100" + "AD07" + Self.idm + "00000A" + history + "9000"
                ),
            ])
        let report = try await CardInspector().report(card)
        #expect(card.unexpected.isEmpty)
        #expect(report.technology == .felica)
        #expect(report.identifier == Self.idm)
        #expect(report.balance?.minorUnits == 980)
        #expect(report.balance?.currency == "JPY")
        #expect(report.history.map(\.date) == ["2026-11-24"])
        #expect(report.history.map(\.kind) == ["purchase"])
        #expect(report.history.map(\.balance.minorUnits) == [980])
        #expect(report.ndefStatus == .notSupported)
    }

    @Test("a reader that refuses the FeliCa pass-through by status word shows the IDm alone")
    func noPassThrough() async throws {
        let card = TranscriptCard(
            atr: Self.feliCaATR,
            steps: [
                ("FFCA000000", Self.idm + "9000"),
                ("FF00000013D44001" + "10" + "06" + Self.idm + "018B000180" + "00", "6A81"),
            ])
        let report = try await CardInspector().report(card)
        #expect(report.identifier == Self.idm)
        #expect(report.balance == nil)
        #expect(card.remaining == 0)
    }

    @Test(
        "a FeliCa card that stops answering between exchanges (PN532 timeout D5 41 01) is card_removed",
        arguments: [1, 2])
    func feliCaGoneMidRead(exchange: Int) async throws {
        let balance = TransitBalance.block(balance: 980).hexString
        let steps: [(command: String, answer: String)] = [
            ("FFCA000000", Self.idm + "9000"),
            (
                "FF00000013D44001" + "10" + "06" + Self.idm + "018B000180" + "00",
                exchange == 1 ? "D541019000" : "D54100" + "1D07" + Self.idm + "000001" + balance + "9000"
            ),
            (
                "FF00000025D44001" + "22" + "06" + Self.idm + "010F090A"
                    + (0..<10).map { "80" + [UInt8($0)].hexString }.joined(),
                "D541019000"
            ),
        ]
        let card = TranscriptCard(atr: Self.feliCaATR, steps: steps)
        let error = await #expect(throws: CardReaderError.self) { try await CardInspector().report(card) }
        #expect(error?.code == "card_removed")
    }

    @Test("a FeliCa card that refuses 0x008B (not a transit card) shows its IDm and no balance")
    func notTransit() async throws {
        let card = TranscriptCard(
            atr: Self.feliCaATR,
            steps: [
                ("FFCA000000", Self.idm + "9000"),
                (
                    "FF00000013D44001" + "10" + "06" + Self.idm + "018B000180" + "00",
                    "D54100" + "0C07" + Self.idm + "01A6" + "9000"
                ),
            ])
        let report = try await CardInspector().report(card)
        #expect(report.balance == nil)
        #expect(report.history.isEmpty)
        #expect(card.remaining == 0)
    }

    /// An NTAG213-sized tag (CC E1 10 12 00: 144 bytes) holding `03 00 FE`.
    static let smallTagReads: [(command: String, answer: String)] = {
        var steps: [(command: String, answer: String)] = [
            ("FFB0000010", "04A25C162B3C8080" + "00480000" + "E1101200" + "9000")
        ]
        // The empty NDEF TLV is in page 4: nothing after it is read.
        steps.append(("FFB0000410", "0300FE00" + String(repeating: "00", count: 12) + "9000"))
        return steps
    }()

    @Test("a message too large for the tag is refused after reading, before any write")
    func tooSmall() async throws {
        let card = TranscriptCard(atr: Self.ntagATR, steps: Self.smallTagReads)
        let message = NDEFMessage(records: [
            URIRecord(uri: "https://canteen.example/c/" + String(repeating: "A", count: 200)).record
        ])
        let error = await #expect(throws: CardReaderError.self) {
            try await NDEFTagWriter().write(message, to: card, lock: false)
        }
        #expect(error?.code == "tag_too_small")
        #expect(error?.message.contains("142") == true)
        #expect(!card.sent.contains { $0.starts(with: [0xFF, 0xD6]) })
    }

    @Test("a card that answers no status word mid-write is reported as removed, with no partial message")
    func removedMidWrite() async throws {
        let message = NDEFMessage(records: [URIRecord(uri: "https://canteen.example/c/K7Q2").record])
        let card = TranscriptCard(atr: Self.ntagATR, steps: Self.smallTagReads + [("FFD6000404" + "0300D101", "")])
        let error = await #expect(throws: CardReaderError.self) {
            try await NDEFTagWriter().write(message, to: card, lock: false)
        }
        #expect(error?.code == "card_removed")
        #expect(error?.message.contains("not a partial one") == true)
        // The first write put the NDEF length at 0: that is the placeholder.
        #expect(card.sent.last == bytes(fromHex: "FFD6000404" + "0300D101"))
    }
}
