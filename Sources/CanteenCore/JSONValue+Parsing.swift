import CanteenJSON
import Foundation

extension JSONValue {
    /// Parses UTF-8 JSON text; a syntax error becomes `malformed_json` naming where it broke.
    public static func parse(_ data: Data) throws(CanteenError) -> JSONValue {
        let result = data.withUnsafeBytes { bytes in Result { () throws(CanteenError) in try parse(bytes) } }
        return try result.get()
    }

    /// Parses UTF-8 JSON text in place (a request body's buffer).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(CanteenError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw CanteenError(syntaxError: error)
        }
    }
}

extension CanteenError {
    /// `json_too_deep` when the text nests deeper than the parser reads, else `malformed_json`;
    /// both name the line and column.
    public init(syntaxError error: JSONSyntaxError) {
        if error.tooDeep {
            self.init(.malformed, code: .jsonTooDeep, message: "the body is refused: \(error.description)")
        } else {
            self.init(.malformed, code: .malformedJson, message: "the body is not valid JSON: \(error.description)")
        }
    }
}
