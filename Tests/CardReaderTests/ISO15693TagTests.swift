import Foundation
import NFC
import Testing

/// ISO 15693 tags as their makers leave them, through a real pcscd, vpcd and the card emulator (issue 32): formatted
/// with the container's size byte counting the whole memory (NXP ICODE SLIX, ST25) or the area after the container,
/// in two sizes; blank. The emulator refuses a block past the last one with 63 00 and logs every APDU.
@Suite("ISO 15693 tags as their makers format them, end to end", .serialized)
struct ISO15693TagTests {
    /// A tag of the emulator: its name, its container, its memory and the largest message it holds.
    struct Shape: CustomTestStringConvertible, Sendable {
        var card: String
        var container: String
        var blocks: Int
        var capacity: Int
        var testDescription: String { "\(card) (\(container), \(blocks) blocks of 4)" }
    }

    static let shapes = [
        Shape(card: "icode-slix", container: "E1400E01", blocks: 28, capacity: 106),
        Shape(card: "st25-512", container: "E1404001", blocks: 128, capacity: 504),
        Shape(card: "iso15693-112", container: "E1400D00", blocks: 28, capacity: 102),
        Shape(card: "iso15693", container: "E1401F00", blocks: 64, capacity: 246),
    ]

    /// A Text record whose message is exactly `size` bytes.
    static func message(size: Int) throws -> (hex: String, text: String) {
        for length in 0..<size {
            let text = String(repeating: "k", count: length)
            let bytes = try NDEFMessage(records: [try TextRecord(text: text, language: "en").record()]).encoded()
            if bytes.count == size { return (bytes.hexString, text) }
        }
        throw PrivateReaderFailure(description: "no Text record of \(size) bytes")
    }

    /// The APDUs the emulator logged (`APDU SW` lines).
    static func log(_ url: URL) throws -> [(apdu: String, status: String)] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            let parts = $0.split(separator: " ")
            return (String(parts[0]), String(parts[1]))
        }
    }

    /// Block reads and writes the tag refused (a block past its last one).
    static func refused(_ log: [(apdu: String, status: String)]) -> [String] {
        log.filter { ($0.apdu.hasPrefix("FFB0") || $0.apdu.hasPrefix("FFD6")) && $0.status != "9000" }.map(\.apdu)
    }

    @Test(
        "a tag holding a message that fills it reads whole, never asking for a block past its last", arguments: shapes)
    func readsFull(shape: Shape) throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let log = reader.folder.appendingPathComponent("apdu.log")
        let message = try Self.message(size: shape.capacity)
        try reader.tap(shape.card, arguments: ["--ndef", message.hex, "--log", log.path])
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        #expect(read.status == 0, "\(read.error)")
        let json = try EndToEndTests.decode(read.output)
        #expect(json.technology == "iso15693")
        #expect(json.identifier == "E004010812345678")
        #expect(json.ndef.map(\.text) == [message.text])
        #expect(json.capacity == shape.capacity)
        #expect(Self.refused(try Self.log(log)).isEmpty)
    }

    @Test("a tag as its maker ships it (an empty NDEF TLV) is read from blocks 0 and 1 alone", arguments: shapes)
    func readsOnlyWhatTheTLVNeeds(shape: Shape) throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let log = reader.folder.appendingPathComponent("apdu.log")
        try reader.tap(shape.card, arguments: ["--log", log.path])
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        #expect(read.status == 0, "\(read.error)")
        #expect(try EndToEndTests.decode(read.output).ndef.isEmpty)
        #expect(try Self.log(log).map(\.apdu).filter { $0.hasPrefix("FFB0") } == ["FFB0000004", "FFB0000104"])
    }

    @Test("without GET SYSTEM INFORMATION an ICODE SLIX still reads whole, without a block past its last")
    func readsWithoutSystemInformation() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let log = reader.folder.appendingPathComponent("apdu.log")
        let message = try Self.message(size: 106)
        try reader.tap("icode-slix", arguments: ["--ndef", message.hex, "--log", log.path, "--no-system-info"])
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        #expect(read.status == 0, "\(read.error)")
        #expect(try EndToEndTests.decode(read.output).ndef.map(\.text) == [message.text])
        #expect(try Self.log(log).contains { $0.apdu == "FFF62B0000" && $0.status == "6D00" })
        #expect(Self.refused(try Self.log(log)).isEmpty)
    }

    @Test("an ICODE SLIX formatted by NXP takes a coupon up to its 106 bytes; one byte more is refused unwritten")
    func writesUpToTheLastBlock() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let dump = reader.folder.appendingPathComponent("slix.hex")
        let log = reader.folder.appendingPathComponent("apdu.log")
        try reader.tap("icode-slix", arguments: ["--dump", dump.path, "--log", log.path])
        // URI record: 5 bytes of header and prefix + the URL's rest; Text record: 7 + text.
        let url = "https://canteen.example/c/" + String(repeating: "Q", count: 40)
        let fits = 106 - (5 + url.count - "https://".count) - 7
        let tooLarge = try reader.canteen([
            "nfc", "write-coupon", "--url", url, "--text", String(repeating: "t", count: fits + 1),
        ])
        #expect(tooLarge.status == 1)
        #expect(tooLarge.error.contains("[tag_too_small]"), "\(tooLarge.error)")
        #expect(tooLarge.error.contains("at most 106"), "\(tooLarge.error)")
        #expect(!FileManager.default.fileExists(atPath: dump.path))
        let text = String(repeating: "t", count: fits)
        let write = try reader.canteen(["nfc", "write-coupon", "--url", url, "--text", text, "--format", "json"])
        #expect(write.status == 0, "\(write.error)")
        #expect(try EndToEndTests.decode(write.output).ndef.map(\.text) == [nil, text])
        #expect(try EndToEndTests.dumped(dump, layout: .type5).records.count == 2)
        #expect(Self.refused(try Self.log(log)).isEmpty)
    }

    @Test(
        "write-coupon formats a blank tag from its system information, says so, writes and reads back",
        arguments: [false, true])
    func formatsBlank(lock: Bool) throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let dump = reader.folder.appendingPathComponent("blank.hex")
        let log = reader.folder.appendingPathComponent("apdu.log")
        try reader.tap("iso15693-blank", arguments: ["--dump", dump.path, "--log", log.path])
        let write = try reader.canteen(
            [
                "nfc", "write-coupon", "--url", "https://canteen.example/c/K7Q2", "--text", "Free coffee", "--format",
                "json",
            ] + (lock ? ["--lock"] : []))
        #expect(write.status == 0, "\(write.error)")
        #expect(
            write.error.contains(
                "formatting the blank ISO 15693 tag: Type 5 capability container E1400E00 (112 bytes: 28 blocks of 4)"),
            "\(write.error)")
        let json = try EndToEndTests.decode(write.output)
        #expect(json.ndef.map(\.text) == [nil, "Free coffee"])
        #expect(json.capacity == 106)
        #expect(json.ndefStatus == (lock ? "read-only" : "read-write"))
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        #expect(try EndToEndTests.decode(read.output).ndef.map(\.uri) == ["https://canteen.example/c/K7Q2", nil])
        let memory = try String(contentsOf: dump, encoding: .utf8)
        #expect(memory.uppercased().hasPrefix(lock ? "E1430E00" : "E1400E00"))
        #expect(try EndToEndTests.dumped(dump, layout: .type5).records.count == 2)
        #expect(Self.refused(try Self.log(log)).isEmpty)
    }

    @Test("a blank tag behind a reader without GET SYSTEM INFORMATION is refused, nothing written")
    func blankWithoutSystemInformation() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let dump = reader.folder.appendingPathComponent("blank.hex")
        try reader.tap("iso15693-blank", arguments: ["--dump", dump.path, "--no-system-info"])
        let write = try reader.canteen(["nfc", "write-coupon", "--url", "https://canteen.example/", "--text", "x"])
        #expect(write.status == 1)
        #expect(write.error.contains("GET SYSTEM INFORMATION") && write.error.contains("[card_unsupported]"))
        #expect(!FileManager.default.fileExists(atPath: dump.path))
    }

    @Test("nfc read shows an ISO 15693 UID E0 first, though the reader gives it E0 last")
    func identifierOrder() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let log = reader.folder.appendingPathComponent("apdu.log")
        try reader.tap("icode-slix", arguments: ["--log", log.path])
        let read = try reader.canteen(["nfc", "read"])
        #expect(read.output.contains("identifier  E004010812345678"), "\(read.output)")
        #expect(try Self.log(log).first { $0.apdu == "FFCA000000" } != nil)
    }

    @Test("an NTAG215 holding an empty message is read from pages 0–7 alone, not to the end of its data area")
    func type2ReadsOnlyWhatTheTLVNeeds() throws {
        let reader = try PrivateReader()
        defer { reader.stop() }
        let log = reader.folder.appendingPathComponent("apdu.log")
        try reader.tap("ntag215", arguments: ["--log", log.path])
        let read = try reader.canteen(["nfc", "read", "--format", "json"])
        #expect(read.status == 0, "\(read.error)")
        #expect(try EndToEndTests.decode(read.output).capacity == 492)
        #expect(try Self.log(log).map(\.apdu).filter { $0.hasPrefix("FFB0") } == ["FFB0000010", "FFB0000410"])
    }
}
