import CanteenJSON
import Foundation
import Testing

/// `JSONParser` is a hand-written parser (request bodies are hot); `JSONDecoder` is the
/// reference it is compared with, and every kind of malformed text gets a named error.
@Suite("JSON parsing")
struct JSONParserTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try parse(bytes: Array(text.utf8)) }

    func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBytes { bytes in
            Result { () throws(JSONSyntaxError) in try JSONParser.parse(bytes) }
        }
        return try result.get()
    }

    func reference(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    /// The reference decodes `1.0` as an integer when it can; compare numbers by value.
    func same(_ mine: JSONValue, _ theirs: JSONValue) -> Bool {
        switch (mine, theirs) {
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        default: return mine == theirs
        }
    }

    static let valid = [
        #"{"cafeId":"seattle","lines":[{"itemId":"latte","quantity":2,"options":["oat"],"note":null}],"pickup":"asap"}"#,
        " \n\t{ \"a\" : [ 1 , -2 , 3.5 , -0.25e-3 , 1E+2 , 0 , -0 ] , \"b\" : { } , \"c\" : [ ] } \r\n",
        #"["caf\u00e9","\ud83d\ude00","\/slash\/","tab\tand\nnewline","\"quoted\" \\ back","日本語","\u0000"]"#,
        #"[9223372036854775807,-9223372036854775808,9223372036854775808,1.7976931348623157e308,5e-324]"#,
        "true", "false", "null", "0", "-12", "\"just a string\"", "[[[[[]]]]]", #"{"":""}"#,
    ]

    @Test("valid documents read as JSONDecoder reads them")
    func valid() throws {
        for text in Self.valid {
            let mine = try parse(text)
            let theirs = try #require(reference(Data(text.utf8)), "\(text)")
            #expect(same(mine, theirs), "\(text): \(mine) vs \(theirs)")
        }
        // Whole numbers written with a fraction or exponent are integers, as JSONDecoder read them.
        #expect(
            try parse("[450, 4.5, 450.0, 4.5e2, -0.0, 9223372036854775808, 1e300]")
                == .array([
                    .int(450), .double(4.5), .int(450), .int(450), .int(0), .double(9_223_372_036_854_775_808),
                    .double(1e300),
                ]))
        // A UTF-8 byte-order mark before the value is ignored; anywhere else it is an error.
        #expect(try parse(bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)) == .object(["a": .int(1)]))
        #expect(throws: JSONSyntaxError.self) {
            try parse(bytes: Array("[".utf8) + [0xEF, 0xBB, 0xBF] + Array("1]".utf8))
        }
        #expect(try parse(#"{"a":"\u00e9\ud83d\ude00"}"#) == .object(["a": .string("\u{E9}\u{1F600}")]))
    }

    @Test(
        "malformed text: a named error with line and column",
        arguments: [
            ("", "the text ends where a value was expected (line 1, column 1)"),
            ("{\"a\":1,}", "expected a member name in double quotes (line 1, column 8)"),
            ("[1,]", "unexpected ']' where a value was expected (line 1, column 4)"),
            ("{a:1}", "expected a member name in double quotes (line 1, column 2)"),
            ("{'a':1}", "expected a member name in double quotes (line 1, column 2)"),
            ("{\"a\" 1}", "expected ':' after the member name \"a\" (line 1, column 6)"),
            ("{\"a\":1\n \"b\":2}", "expected ',' or '}' after an object member (line 2, column 2)"),
            ("[1 2]", "expected ',' or ']' after an array element (line 1, column 4)"),
            ("[01]", "a number may not have a leading zero (line 1, column 2)"),
            ("[-]", "a number needs a digit after '-' (line 1, column 3)"),
            ("[1.]", "a number needs a digit after '.' (line 1, column 4)"),
            ("[1e]", "a number needs a digit in its exponent (line 1, column 4)"),
            ("[1e400]", "the number 1e400 is too large (line 1, column 2)"),
            ("[NaN]", "unexpected 'N' where a value was expected (line 1, column 2)"),
            ("[tru]", "unexpected 't' where a value was expected (line 1, column 2)"),
            ("\"open", "a string is not closed (line 1, column 1)"),
            ("[\"a\tb\"]", "a control character (byte 0x9) must be escaped inside a string (line 1, column 4)"),
            (#"["\x"]"#, #"\'x' is not a JSON escape (line 1, column 4)"#),
            (#"["\u12"]"#, #"a \u escape needs four hexadecimal digits (line 1, column 7)"#),
            (
                #"["\ud83d"]"#,
                #"a \u escape of a high surrogate must be followed by its low surrogate (line 1, column 9)"#
            ),
            (#"["\ude00"]"#, #"a \u escape of a low surrogate has no high surrogate before it (line 1, column 9)"#),
            (#"{"a":1,"a":2}"#, "the member name \"a\" appears twice (line 1, column 8)"),
            ("{} {}", "unexpected text after the JSON value (line 1, column 4)"),
            ("[1]x", "unexpected text after the JSON value (line 1, column 4)"),
            ("[1", "the text ends inside an array (line 1, column 3)"),
            ("{\"a\":1", "the text ends inside an object (line 1, column 7)"),
        ])
    func malformed(text: String, message: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try parse(text) }
        #expect(error?.description == message)
        #expect(error?.tooDeep == false)
    }

    @Test("bytes that are not UTF-8 are refused, inside and outside strings")
    func notUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
            [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22], [0xFE, 0xFF, 0x7B, 0x7D],
        ] {
            #expect(throws: JSONSyntaxError.self, "\(bytes)") { try parse(bytes: bytes) }
        }
    }

    @Test("nesting is limited: 64 levels read, 65 refused, a megabyte of '[' is an error, not a crash")
    func depth() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parse(deepest)
        let tooDeep = #expect(throws: JSONSyntaxError.self) { try parse("[" + deepest + "]") }
        #expect(tooDeep?.tooDeep == true)
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 1 << 20)) }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test("mutated documents never crash; whatever is accepted, JSONDecoder reads the same")
    func mutations() throws {
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let alphabet = Array(#"{}[]:,"\u0123456789abcdefn-+.eE tlrs/"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        var accepted = 0
        for round in 0..<4000 {
            var bytes = Array(Self.valid[round % Self.valid.count].utf8)
            for _ in 0..<(1 + next() % 3) {
                let position = next() % (bytes.count + 1)
                switch next() % 3 {
                case 0: bytes.insert(alphabet[next() % alphabet.count], at: position)
                case 1: if position < bytes.count { bytes.remove(at: position) }
                default: if position < bytes.count { bytes[position] = alphabet[next() % alphabet.count] }
                }
            }
            guard let mine = try? parse(bytes: bytes) else { continue }
            accepted += 1
            let theirs = reference(Data(bytes))
            #expect(theirs.map { same(mine, $0) } ?? false, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 100)
    }

    @Test("canonical text: keys sorted, numbers and strings as JSONEncoder writes them")
    func canonical() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for text in Self.valid {
            let value = try parse(text)
            #expect(value.encoded() == (try encoder.encode(value)), "\(text)")
        }
        #expect(
            String(decoding: try parse(#"{"b":[1.0,2.5,1e300],"a":null,"Z":"/"}"#).encoded(), as: UTF8.self)
                == #"{"Z":"/","a":null,"b":[1,2.5,1e+300]}"#)
        // Names are ordered by their UTF-8 bytes, as JSONEncoder orders them, also when not in NFC.
        let decomposed: JSONValue = .object(["e\u{301}": 1, "f": 2, "\u{E9}t\u{E9}": 3, "Z": 4])
        #expect(decomposed.encoded() == (try encoder.encode(decomposed)))
    }
}
