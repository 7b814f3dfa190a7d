import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// A display's request parked in a long-poll, and the connection it came on.
struct ParkedConnection: Sendable {
    let channel: any Channel
    /// The request's id, which its answer carries (`X-Request-ID`).
    let requestID: String
}

/// Answers the displays woken by one change on their connections, straight from their event
/// loops, before any of their handlers resumes.
///
/// Every display woken by a change gets the same page. Through Hummingbird, each answer would
/// first resume its display's task, return through the middleware, cross to the connection's
/// event loop and convert its head there: the last of two thousand displays had its answer 50 to
/// 100 ms after the order on two cores, the other displays' handlers running first. Here each
/// event loop writes the page to its parked connections, `batch` at a time, and only then are
/// the displays' handlers resumed; the answer each handler returns is then dropped by its
/// connection's `ConnectionGuard`, which saw the request answered. The bookkeeping (metrics, log
/// line) still happens, after the answers are out.
///
/// The answer is the one Hummingbird would write, byte for byte: the page's head (encoded once,
/// by NIO's HTTP/1 encoder), the request's id, then the server's `Date` and `Server`
/// (`CanteenServer.name`, the name `buildApplication` gives Hummingbird), as `Application` adds
/// them; then the page's body, the same buffer for every display.
struct ParkedDisplayAnswers: Sendable {
    let metrics: CanteenMetrics
    private let dates = HTTPDates()

    init(metrics: CanteenMetrics) {
        self.metrics = metrics
    }

    /// Writes `page` as the answer of each parked connection it can. The result says, in the
    /// order given, which were answered; a nil connection, or one whose request can no longer
    /// be answered this way (closed, not one of our HTTP/1 connections), is not.
    func answer(_ page: FeedResponses.Rendered, published: ContinuousClock.Instant,
                to connections: [ParkedConnection?]) async -> [Bool] {
        var answered = [Bool](repeating: false, count: connections.count)
        var loops: [ObjectIdentifier: (loop: any EventLoop, parked: [(index: Int, connection: ParkedConnection)])] = [:]
        for (index, connection) in connections.enumerated() {
            guard let connection else { continue }
            let loop = connection.channel.eventLoop
            loops[ObjectIdentifier(loop), default: (loop, [])].parked.append((index, connection))
        }
        guard !loops.isEmpty, let head = Self.encodedHead(page.headers) else { return answered }
        // The head ends with the request's id, then `Date` and `Server`, as Hummingbird's
        // `Application` adds them after the route's fields.
        let trailing = "\r\n\(HTTPField.Name.date.rawName): \(dates.now())"
            + "\r\n\(HTTPField.Name.server.rawName): \(CanteenServer.name)\r\n\r\n"
        let body = page.body
        let metrics = metrics
        let written = loops.values.map { loop, parked in
            Self.answer(parked, on: loop) { [trailing] connection in
                var fields = connection.channel.allocator.buffer(capacity: connection.requestID.utf8.count + trailing.utf8.count)
                fields.writeString(connection.requestID)
                fields.writeString(trailing)
                guard let writer = try? connection.channel.pipeline.syncOperations.handler(type: AnswerAheadWriter.self),
                      writer.connectionGuard?.answer(head, fields, body) == true
                else { return false }
                metrics.feedAnsweredAhead(since: published)
                return true
            }
        }
        for indices in written {
            for index in (try? await indices.get()) ?? [] { answered[index] = true }
        }
        return answered
    }

    /// Answers at most this many displays in one task of an event loop: a kiosk's `201` waiting
    /// for the same loop is written between two batches, not after a thousand answers.
    static let batch = 32

    /// Calls `write` for each of `parked` on `loop`, `batch` at a time; the indices of those
    /// written.
    private static func answer(_ parked: [(index: Int, connection: ParkedConnection)], on loop: any EventLoop,
                               write: @escaping @Sendable (ParkedConnection) -> Bool) -> EventLoopFuture<[Int]> {
        let promise = loop.makePromise(of: [Int].self)
        @Sendable func run(from start: Int, written: [Int]) {
            var written = written
            let end = min(start + batch, parked.count)
            for (index, connection) in parked[start..<end] where write(connection) { written.append(index) }
            guard end < parked.count else { return promise.succeed(written) }
            loop.execute { run(from: end, written: written) }
        }
        loop.execute { run(from: 0, written: []) }
        return promise.futureResult
    }

    /// The head of a `200` answer with `fields`, as NIO's HTTP/1 encoder writes it for every
    /// answer, up to its request id's value: the last line is left open as `X-Request-ID: `.
    static func encodedHead(_ fields: HTTPFields) -> ByteBuffer? {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        var fields = fields
        fields.append(HTTPField(name: RequestLog.header, value: "-"))
        guard (try? channel.pipeline.syncOperations.addHandlers(HTTPResponseEncoder(), HTTP1ToHTTPServerCodec(secure: false))) != nil,
              (try? channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: fields)))) != nil,
              var head = try? channel.readOutbound(as: IOData.self).flatMap({ data -> ByteBuffer? in
                  if case .byteBuffer(let buffer) = data { return buffer }
                  return nil
              }),
              // Everything but the placeholder "-" and the head's end ("\r\n\r\n").
              head.readableBytes > 5
        else { return nil }
        head.moveWriterIndex(to: head.writerIndex - 5)
        return head
    }
}

/// The current time as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110's IMF-fixdate),
/// rendered once a second.
final class HTTPDates: Sendable {
    private static let style = Date.VerbatimFormatStyle(
        format: "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .padded(4)) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
        locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
    private let latest = Mutex<(second: Int64, text: String)>((-1, ""))

    /// `date` (now by default) as an HTTP date.
    func now(_ date: Date = Date()) -> String {
        let second = Int64(date.timeIntervalSince1970.rounded(.down))
        if let text = latest.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = date.formatted(Self.style)
        latest.withLock { $0 = (second, text) }
        return text
    }
}
