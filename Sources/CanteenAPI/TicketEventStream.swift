import CanteenCore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The body of a café's ticket event stream (`GET /v1/cafes/{cafeId}/tickets/events`).
///
/// The first event is `snapshot` (the open tickets) for a new stream, or `changes` after the
/// cursor it resumes from (possibly with no ticket: the display then knows it has caught up);
/// then one `changes` event per change that concerns its station. Each event's `id` is the feed
/// cursor after it. A comment is written after `heartbeat` without an event, when the token is
/// also checked again: a revoked token ends its streams. The stream ends when the client goes
/// away or the server stops.
///
/// A class: each frame of the stream's loop and of its body closure holds one reference, not a
/// copy of the café and its presentation, and the connection's task keeps the most stack it
/// ever used for as long as the stream stays open.
final class TicketEventStream: Sendable {
    let feed: TicketFeed
    let cafe: Cafe
    let station: String?
    let presentation: Presentation
    /// Where the stream starts: nil for the open tickets, else the last event id the display has.
    let cursor: Int64?
    let heartbeat: Duration
    /// Whether the token that opened the stream still works.
    let tokenIsLive: @Sendable () async -> Bool

    init(
        feed: TicketFeed, cafe: Cafe, station: String?, presentation: Presentation, cursor: Int64?,
        heartbeat: Duration, tokenIsLive: @escaping @Sendable () async -> Bool
    ) {
        self.feed = feed
        self.cafe = cafe
        self.station = station
        self.presentation = presentation
        self.cursor = cursor
        self.heartbeat = heartbeat
        self.tokenIsLive = tokenIsLive
    }

    /// How long an `EventSource` waits before it reconnects, in milliseconds (its `retry:`).
    static let reconnectDelay = 2000

    func write(to writer: inout any ResponseBodyWriter) async throws {
        feed.streams.add(1, ordering: .relaxed)
        defer { feed.streams.subtract(1, ordering: .relaxed) }
        try await writer.write(ByteBuffer(string: "retry: \(Self.reconnectDelay)\n\n"))
        var cursor = cursor
        var sent = false
        var quietSince = ContinuousClock.now
        while true {
            let step = try await feed.nextStreamStep(self, after: cursor, wait: sent, until: quietSince + heartbeat)
            switch step {
            case .page(let page):
                // A page of other stations' changes only moves the cursor on, unsent: a display
                // that resumes from an earlier id is sent nothing for them either.
                if !page.isEmpty || !sent {
                    try await writer.write(page.body)
                    quietSince = .now
                    sent = true
                }
                cursor = page.cursor
            case .quiet:
                guard await tokenIsLive() else {
                    try await writer.finish(nil)
                    return
                }
                try await writer.write(Self.comment)
                quietSince = .now
            case .stopping:
                try await writer.finish(nil)
                return
            }
        }
    }

    /// What keeps a quiet stream open through proxies.
    static let comment = ByteBuffer(string: ": still here\n\n")
}
