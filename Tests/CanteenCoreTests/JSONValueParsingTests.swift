import CanteenCore
import CanteenJSON
import Foundation
import Testing

/// A body that is not JSON is a domain error a client can act on: the code tells bad text from
/// text nested too deep, and the message names the line and column (the parser's own tests, in
/// CanteenJSONTests, cover every kind of malformed text).
@Suite("JSON bodies as domain errors")
struct JSONValueParsingTests {
    @Test("text that is not JSON is malformed_json naming the line and column")
    func malformed() {
        #expect(
            throws: CanteenError(
                .malformed, code: .malformedJson,
                message: "the body is not valid JSON: expected ',' or '}' after an object member"
                    + " (line 2, column 2)")
        ) {
            try JSONValue.parse(Data("{\"a\":1\n \"b\":2}".utf8))
        }
    }

    @Test("text nested deeper than the parser reads is json_too_deep")
    func tooDeep() {
        let text = String(repeating: "[", count: JSONParser.maxDepth + 1) + String(repeating: "]", count: 65)
        let error = #expect(throws: CanteenError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(error?.code == .jsonTooDeep)
        #expect(error?.kind == .malformed)
        #expect(error?.message.hasPrefix("the body is refused: arrays and objects nest more than 64 deep") == true)
    }

    @Test("a JSON body reads as its value")
    func valid() throws {
        #expect(try JSONValue.parse(Data(#"{"a":[1,2.5,"x"]}"#.utf8)) == .object(["a": [1, .double(2.5), "x"]]))
    }
}
