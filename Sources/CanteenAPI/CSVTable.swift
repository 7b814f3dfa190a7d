import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A table written as CSV (RFC 4180): a header row, then one row per record, fields quoted when
/// they hold a comma, a quote or a line break, lines ended by CRLF. Numbers are written as they
/// are, unformatted.
struct CSVTable {
    var header: [String]
    var rows: [[String]] = []

    /// The media type of a CSV answer.
    static let contentType = "text/csv; charset=utf-8; header=present"

    /// Whether the request asks for CSV (`Accept: text/csv`) rather than JSON.
    static func isWanted(by request: Request) -> Bool {
        guard let accept = request.headers[.accept] else { return false }
        return accept.split(separator: ",").contains { range in
            let mediaType = range.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            return mediaType == "text/csv"
        }
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    var text: String {
        ([header] + rows).map { $0.map(Self.field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// A field, quoted (with quotes doubled) when it must be.
    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The answer carrying this table; `Vary: Accept`, since the same URL also answers JSON.
    func response(headers extra: HTTPFields = [:]) -> Response {
        var headers = Self.varyingOnAccept(extra)
        headers[.contentType] = Self.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `headers` with `Accept` added to `Vary`: the answer of a URL that answers CSV or JSON.
    static func varyingOnAccept(_ headers: HTTPFields) -> HTTPFields {
        var headers = headers
        headers[.vary] = headers[.vary].map { "\($0), Accept" } ?? "Accept"
        return headers
    }
}
