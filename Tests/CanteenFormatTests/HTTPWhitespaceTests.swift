import CanteenFormat
import Testing

@Suite("HTTP white space")
struct HTTPWhitespaceTests {
    @Test("spaces and tabs are trimmed from both ends, nothing else")
    func trimming() {
        #expect(" \t\"42\" \t".trimmingHTTPWhitespace() == "\"42\"")
        #expect("cnt_abc".trimmingHTTPWhitespace() == "cnt_abc")
        #expect(" a b ".trimmingHTTPWhitespace() == "a b")
        #expect(" \t ".trimmingHTTPWhitespace() == "")
        #expect("".trimmingHTTPWhitespace() == "")
        #expect("\nx\n".trimmingHTTPWhitespace() == "\nx\n")
        #expect("W/\"7\", \"8\"".split(separator: ",").map { $0.trimmingHTTPWhitespace() } == ["W/\"7\"", "\"8\""])
    }
}
