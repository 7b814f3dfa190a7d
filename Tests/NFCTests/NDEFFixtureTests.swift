import Foundation
import NFC
import Testing

/// The fixtures `Resources/make_ndef_fixtures.py` wrote with ndeflib 0.3.3.
struct NDEFFixtures: Decodable {
    struct Record: Decodable {
        var tnf: UInt8
        var type: String
        var id: String
        var payload: String

        var record: NDEFRecord {
            NDEFRecord(
                typeNameFormat: NDEFTypeNameFormat(rawValue: tnf)!, type: bytes(fromHex: type)!,
                identifier: bytes(fromHex: id)!, payload: bytes(fromHex: payload)!)
        }
    }

    struct Text: Decodable {
        var text: String
        var language: String
        var encoding: String
    }

    struct Valid: Decodable {
        var name: String
        var hex: String
        var records: [Record]
        var uri: String?
        var text: Text?
    }

    struct Invalid: Decodable {
        var name: String
        var hex: String
        var ndeflibRefuses: Bool
    }

    var generator: String
    var valid: [Valid]
    var invalid: [Invalid]

    static let loaded: NDEFFixtures = {
        let url = Bundle.module.url(forResource: "Resources/ndef-fixtures", withExtension: "json")!
        return try! JSONDecoder().decode(NDEFFixtures.self, from: Data(contentsOf: url))
    }()
}

@Suite("NDEF against ndeflib's bytes")
struct NDEFFixtureTests {
    @Test("the notes' two checked examples are in the fixtures, byte for byte")
    func notesExamples() throws {
        let uri = try #require(NDEFFixtures.loaded.valid.first { $0.uri == "https://example.com/o/42" })
        #expect(uri.hex.uppercased() == "D1011155046578616D706C652E636F6D2F6F2F3432")
        let encoded = try NDEFMessage(records: [URIRecord(uri: "https://example.com/o/42").record]).encoded()
        #expect(encoded.hexString == "D1011155046578616D706C652E636F6D2F6F2F3432")
        let text = try NDEFMessage(records: [TextRecord(text: "Order 42", language: "en").record()]).encoded()
        #expect(text.hexString == "D1010B5402656E4F72646572203432")
    }

    @Test("every message ndeflib encoded decodes to the same records", arguments: NDEFFixtures.loaded.valid)
    func decodes(_ fixture: NDEFFixtures.Valid) throws {
        let message = try NDEFMessage(bytes: bytes(fromHex: fixture.hex)!)
        #expect(message.records == fixture.records.map(\.record), "\(fixture.name)")
    }

    @Test("encoding the same records gives ndeflib's bytes", arguments: NDEFFixtures.loaded.valid)
    func encodes(_ fixture: NDEFFixtures.Valid) throws {
        let bytes = try NDEFMessage(records: fixture.records.map(\.record)).encoded()
        #expect(bytes.hexString == fixture.hex.uppercased(), "\(fixture.name)")
    }

    @Test(
        "URI records expand and abbreviate prefixes as ndeflib does",
        arguments: NDEFFixtures.loaded.valid.filter { $0.uri != nil })
    func uris(_ fixture: NDEFFixtures.Valid) throws {
        let record = try #require(try NDEFMessage(bytes: bytes(fromHex: fixture.hex)!).records.first)
        #expect(try URIRecord(record: record).uri == fixture.uri)
        #expect(URIRecord(uri: fixture.uri!).record == record)
    }

    @Test(
        "Text records decode in UTF-8 and UTF-16 (ndeflib's little-endian BOM)",
        arguments: NDEFFixtures.loaded.valid.filter { $0.text != nil })
    func texts(_ fixture: NDEFFixtures.Valid) throws {
        let expected = try #require(fixture.text)
        let record = try #require(try NDEFMessage(bytes: bytes(fromHex: fixture.hex)!).records.first)
        let text = try TextRecord(record: record)
        #expect(text.text == expected.text)
        #expect(text.language == expected.language)
        #expect(text.encoding.rawValue == expected.encoding)
        if text.encoding == .utf8 {
            #expect(try text.record() == record)
        } else {
            // We write UTF-16 big-endian with FE FF; it reads back as the same text.
            let ours = try text.record()
            #expect(Array(ours.payload[(1 + expected.language.utf8.count)...].prefix(2)) == [0xFE, 0xFF])
            #expect(try TextRecord(record: ours) == text)
        }
    }

    @Test(
        "messages ndeflib refuses are refused with an error naming an offset inside the bytes",
        arguments: NDEFFixtures.loaded.invalid)
    func refuses(_ fixture: NDEFFixtures.Invalid) throws {
        let data = bytes(fromHex: fixture.hex)!
        let error = try #require(throws: NFCDecodingError.self) { try NDEFMessage(bytes: data) }
        #expect((0...data.count).contains(error.offset))
        #expect(!error.message.isEmpty)
    }

    @Test("a chunked record is refused with nfc_chunked_record at its header")
    func chunked() throws {
        let data = bytes(fromHex: "B5000300616263 56000100 64")!
        let error = try #require(throws: NFCDecodingError.self) { try NDEFMessage(bytes: data) }
        #expect(error.code == "nfc_chunked_record")
        #expect(error.offset == 0)
        #expect(error.description.contains("chunked"))
    }

    @Test("a truncated payload names the length's offset and both counts")
    func truncated() throws {
        let error = try #require(throws: NFCDecodingError.self) {
            try NDEFMessage(bytes: bytes(fromHex: "D10105556162")!)
        }
        #expect(error.code == "nfc_truncated")
        #expect(error.offset == 2)
        #expect(error.message.contains("6 bytes") && error.message.contains("3 left"))
    }

    @Test("a reserved URI prefix code and broken UTF-8 are refused with their offsets")
    func badPayloads() throws {
        let reserved = NDEFRecord(typeNameFormat: .wellKnown, type: [0x55], payload: [0x24, 0x61])
        #expect(throws: NFCDecodingError.invalid0x24) { try URIRecord(record: reserved) }
        let broken = NDEFRecord(typeNameFormat: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E, 0x61, 0xC3])
        let error = try #require(throws: NFCDecodingError.self) { try TextRecord(record: broken) }
        #expect(error.offset == 4)
        let odd = NDEFRecord(typeNameFormat: .wellKnown, type: [0x54], payload: [0x82, 0x65, 0x6E, 0xFE, 0xFF, 0x00])
        #expect(throws: NFCDecodingError.self) { try TextRecord(record: odd) }
    }
}

extension NDEFFixtures.Valid: CustomTestStringConvertible {
    var testDescription: String { name }
}

extension NDEFFixtures.Invalid: CustomTestStringConvertible {
    var testDescription: String { name }
}

extension NFCDecodingError {
    static let invalid0x24 = NFCDecodingError(
        code: "nfc_invalid_value", offset: 0, message: "URI prefix code 0x24 is reserved (0x00–0x23 are defined)")
}
