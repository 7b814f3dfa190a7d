import NIOHTTP1
import Testing

@testable import CanteenAPI

@Suite("A request head's framing fields, read in one pass")
struct FramingFieldsTests {
    @Test("names match whatever their case; every Transfer-Encoding coding in order; the first Content-Length")
    func onePass() {
        let fields = FramingFields(
            HTTPHeaders([
                ("HOST", "a"), ("host", "b"), ("Transfer-Encoding", "gzip, Chunked"),
                ("transfer-encoding", " chunked "),
                ("Content-Length", "12"), ("CONTENT-LENGTH", "13"), ("Expect", " 100-Continue "),
                ("X-Host", "not a host"), ("Hos", "not either"),
            ]))
        #expect(fields.hosts == 2)
        #expect(fields.transferEncodings == 2)
        #expect(fields.codings == ["gzip", "chunked", "chunked"])
        #expect(fields.lastCoding == "chunked")
        #expect(fields.contentLength == "12")
        #expect(fields.expectations == ["100-continue"])
        #expect(ChunkSizeWatch.Framing(fields) == .chunked)
    }

    @Test("a head without them: no host, no coding, no length; framed without a body or by its length")
    func none() {
        let bare = FramingFields(HTTPHeaders([("Accept", "*/*")]))
        #expect(bare.hosts == 0 && bare.transferEncodings == 0 && bare.codings.isEmpty && bare.contentLength == nil)
        #expect(ChunkSizeWatch.Framing(bare) == ChunkSizeWatch.Framing.none)
        #expect(ChunkSizeWatch.Framing(FramingFields(HTTPHeaders([("content-length", "40")]))) == .length(40))
        // The last field's last coding decides: a trailing empty field names none.
        let emptyLast = FramingFields(HTTPHeaders([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "")]))
        #expect(emptyLast.lastCoding == nil)
        #expect(ChunkSizeWatch.Framing(emptyLast) == ChunkSizeWatch.Framing.none)
    }
}
