import CanteenCore
import CanteenJSON
import Testing

@Suite("Reading JSON objects field by field")
struct JSONObjectReaderTests {
    @Test(
        "a text of white space only is empty, in any script; one visible character is not",
        arguments: [
            ("", true), (" ", true), ("\t\n ", true), ("\u{00A0}", true), ("\u{3000}\u{2003}", true),
            (" \u{0301}", true),
            ("a", false), (" a ", false), ("\u{00A0}x", false), ("é", false), ("\u{0600}a", false), ("名前", false),
            ("\u{3000}名", false),
        ])
    func blank(text: String, isEmpty: Bool) throws {
        let problems = ValidationProblems()
        var reader = try #require(JSONObjectReader(.object(["name": .string(text)]), path: "", problems: problems))
        let read = reader.string("name")
        #expect((read == nil) == isEmpty, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(problems.all.map(\.message) == (isEmpty ? ["must not be empty"] : []))
        #expect(text.allSatisfy(\.isWhitespace) == isEmpty)  // the rule it stands for
    }

    @Test("fields nobody asked for are reported once each, in sorted order")
    func unknownFields() throws {
        let problems = ValidationProblems()
        var reader = try #require(
            JSONObjectReader(
                .object(["b": 1, "name": "x", "a": 2, "zz": 3]), path: "item",
                problems: problems))
        _ = reader.string("name")
        _ = reader.string("name")
        reader.finish()
        #expect(problems.all.map(\.path) == ["item.a", "item.b", "item.zz"])
        #expect(problems.all.allSatisfy { $0.code == .unknownField })
    }
}
