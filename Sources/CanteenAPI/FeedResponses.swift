import CanteenCore
import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// Shares one feed query and one JSON rendering among every display asking the same question.
///
/// When an order commits, every display of the café long-polling with the same cursor wakes
/// at once; without sharing, fifty displays would run fifty identical queries and encodings.
/// The key holds the café's latest sequence when the question was asked, so an answer is
/// reused only while nothing has changed since; the first asker computes it, the others
/// await that same computation.
final class FeedResponses: Sendable {
    /// What a display asks: a café's changes after a cursor, of one station or all, rendered
    /// for one variant of the readers (language and formats), as an answer or as a stream's event.
    struct Question: Hashable, Sendable {
        let cafeID: String
        let after: Int64?
        let station: String?
        let variant: String
        var form: Form = .answer
    }

    /// How a page is written: the JSON body of an answer, or one event of a ticket event stream
    /// (`id:` the page's cursor, `event:` `snapshot` or `changes`, `data:` the same JSON).
    enum Form: Hashable, Sendable {
        case answer
        case event
    }

    /// A question while the café's latest change is `latest`.
    struct Key: Hashable, Sendable {
        let question: Question
        let latest: Int64
    }

    /// A rendered page: the JSON body (or the whole event), its cursor, whether it held any
    /// ticket, and the answer's headers. Every display woken by one change is answered with this
    /// same buffer and these same headers.
    struct Rendered: Sendable {
        let body: ByteBuffer
        let cursor: Int64
        let isEmpty: Bool
        /// Content type and length, language, validators: the whole head of the answer but its
        /// request id. (With its length here, an answer's head is not copied to add it.)
        let headers: HTTPFields

        /// `headers` are the reader's (language, `Vary`); the page adds its validators, type and
        /// length.
        init(body: some Collection<UInt8>, cursor: Int64, isEmpty: Bool, headers: HTTPFields) {
            self.body = ByteBuffer(bytes: body)
            self.cursor = cursor
            self.isEmpty = isEmpty
            var headers = headers
            headers.setValidator(EntityTags.tag(cursor))
            headers = JSONResponse.fields(headers)  // type and nosniff, as every JSON answer: once per page
            headers[.contentLength] = String(self.body.readableBytes)
            self.headers = headers
        }

        private init(event: ByteBuffer, cursor: Int64, isEmpty: Bool) {
            body = event
            self.cursor = cursor
            self.isEmpty = isEmpty
            headers = [:]
        }

        /// One event of a ticket event stream carrying the page `json` (no newline in it: JSON
        /// escapes them in strings): `snapshot` (the open tickets, replacing what a display
        /// shows) or `changes` (tickets changed after the stream's last event id). Its headers
        /// are empty: the stream's head was written once, when it began.
        static func event(json: some Collection<UInt8>, cursor: Int64, isEmpty: Bool, snapshot: Bool) -> Rendered {
            var event = ByteBuffer()
            event.reserveCapacity(json.count + 48)
            event.writeString("id: \(cursor)\nevent: \(snapshot ? "snapshot" : "changes")\ndata: ")
            event.writeBytes(json)
            event.writeString("\n\n")
            return Rendered(event: event, cursor: cursor, isEmpty: isEmpty)
        }
    }

    private let inFlight = Mutex<[Key: Task<Rendered, any Error>]>([:])
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The rendered page for `key`, computing it with `render` only if nobody has yet.
    func page(for key: Key, render: @escaping @Sendable () async throws -> Rendered) async throws -> Rendered {
        let task = inFlight.withLock { entries -> Task<Rendered, any Error> in
            if let running = entries[key] { return running }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            let task = Task { try await render() }
            entries[key] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            inFlight.withLock { _ = $0.removeValue(forKey: key) }
            throw error
        }
    }
}
