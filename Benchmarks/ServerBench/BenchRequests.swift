/// The raw HTTP/1.1 requests of the benchmark, built for one café and its tokens.
struct BenchRequests: Sendable {
    let cafe: String
    let kioskToken: String
    let kitchenToken: String
    /// Item ids, one order line each (quantity 1, no options).
    let items: [String]

    static let healthz = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    /// `POST /v1/orders` with a kiosk token, "asap" pickup and the given `Idempotency-Key`.
    func order(key: String) -> [UInt8] {
        let lines = items.map { #"{"itemId":"\#($0)","quantity":1,"options":[]}"# }.joined(separator: ",")
        let body = #"{"cafeId":"\#(cafe)","lines":[\#(lines)],"pickup":"asap","customer":{"name":"Bench \#(key)"}}"#
        return Array(("POST /v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kioskToken)\r\n"
            + "Idempotency-Key: \(key)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body).utf8)
    }

    /// The ticket feed with a kitchen token; after a cursor it carries `If-None-Match` = that cursor's ETag.
    func feed(after cursor: Int64?, wait: Int = 0) -> [UInt8] {
        var target = "/v1/cafes/\(cafe)/tickets"
        var condition = ""
        if let cursor {
            target += "?after=\(cursor)" + (wait > 0 ? "&wait=\(wait)" : "")
            condition = "If-None-Match: \"\(cursor)\"\r\n"
        }
        return Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kitchenToken)\r\n\(condition)\r\n".utf8)
    }

    /// The café's latest feed cursor: pages through the feed until it answers 304 or no ticket.
    func latestCursor(port: Int) throws(BenchError) -> Int64 {
        let connection = try HTTPConnection(port: port)
        var cursor: Int64?
        for _ in 0..<10_000 {
            let response = try connection.exchange(feed(after: cursor))
            if response.status == 304, let cursor { return cursor }
            guard response.status == 200 else { throw BenchError("feed", "feed answered \(response.status)") }
            let page = try OrderToDisplayRun.parseFeed(response.body)
            if page.orderIDs.isEmpty { return page.cursor }
            cursor = page.cursor
        }
        throw BenchError("feed", "the feed did not end after 10,000 pages")
    }
}
