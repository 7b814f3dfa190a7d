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
        return Array(
            ("POST /v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kioskToken)\r\n"
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
        return Array(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kitchenToken)\r\n\(condition)\r\n"
                .utf8)
    }

    /// The café's ticket event stream with a kitchen token, after a cursor (nil: from the open tickets).
    func ticketEvents(after cursor: Int64?) -> [UInt8] {
        let query = cursor.map { "?after=\($0)" } ?? ""
        return Array(
            ("GET /v1/cafes/\(cafe)/tickets/events\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(kitchenToken)\r\nAccept: text/event-stream\r\n\r\n").utf8)
    }

    /// `GET /v1/orders/{id}` with the kiosk token; with an ETag and `wait`, a long-poll for a change.
    func orderRead(id: String, etag: String? = nil, wait: Int = 0) -> [UInt8] {
        let target = "/v1/orders/\(id)" + (wait > 0 ? "?wait=\(wait)" : "")
        let condition = etag.map { "If-None-Match: \($0)\r\n" } ?? ""
        return Array(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kioskToken)\r\n\(condition)\r\n".utf8)
    }

    /// `GET /v1/orders/{id}/events` with the kiosk token, resuming after `lastEventID`.
    func orderEvents(id: String, lastEventID: Int64) -> [UInt8] {
        Array(
            ("GET /v1/orders/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kioskToken)\r\n"
                + "Accept: text/event-stream\r\nLast-Event-ID: \(lastEventID)\r\n\r\n").utf8)
    }

    /// `POST /v1/tickets/{id}/status` with the kitchen token.
    func move(ticket: String, to status: String) -> [UInt8] {
        let body = #"{"status":"\#(status)"}"#
        return Array(
            ("POST /v1/tickets/\(ticket)/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(kitchenToken)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    /// The café's latest feed cursor: pages through the feed until it answers 304 or no ticket.
    /// The feed's latest cursor, paging from `known` (from the open tickets without one).
    func latestCursor(port: Int, after known: Int64? = nil) throws(BenchError) -> Int64 {
        let connection = try HTTPConnection(port: port)
        var cursor: Int64? = known
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
