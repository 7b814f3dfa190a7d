import CanteenCore
import CanteenJSON
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The kitchen feed of every café: where each café's feed stands, the wake-ups of displays
/// long-polling it or following its event stream, and the rendered pages they share; and the
/// wake-ups of clients following one order's status.
///
/// Changes committed by this process are known at once (the ticket and order-event
/// repositories report them after commit). Changes committed by another process on the same
/// database (a second server, the command line) are found by `run()`, which asks the
/// repositories for changes after the last one it saw every `watchInterval`: one small query
/// however many displays wait (and one more for order events while someone follows an order).
/// The database stays the truth: a page is always read from it, so a late wake-up delays a
/// ticket but can never skip one.
public final class TicketFeed: Service, Sendable {
    /// The most tickets one answer carries; a display far behind pages with the cursor.
    public static let pageSize = 500

    private let tickets: any TicketRepository
    private let events: any OrderEventRepository
    typealias Signal = FeedSignal<FeedResponses.Question, FeedResponses.Rendered>
    /// Wakes the displays parked in a long-poll.
    private let signal: Signal
    /// Wakes the event streams waiting for a change (apart, so each kind is counted on its own).
    let streamSignal = Signal()
    /// Event streams open right now.
    let streams = Atomic<Int>(0)
    private let followers = OrderFollowers()
    let pages: FeedResponses
    private let watchInterval: Duration
    private let watched = Mutex<Int64?>(nil)
    private let eventsWatched = Mutex<Int64?>(nil)
    private let logger: Logger
    /// Where the feed records its wake-up delays (and the API its other metrics).
    public let metrics: CanteenMetrics
    /// How long an event stream (an order's, a café's tickets) stays quiet before it sends a comment.
    public let heartbeat: Duration

    public init(
        tickets: any TicketRepository, events: any OrderEventRepository,
        watchInterval: Duration = .milliseconds(200), heartbeat: Duration = .seconds(15),
        sharedPages: Int = 256, logger: Logger = Logger(label: "canteen.feed"),
        metrics: CanteenMetrics = CanteenMetrics()
    ) {
        self.tickets = tickets
        self.events = events
        self.watchInterval = watchInterval
        self.heartbeat = heartbeat
        self.logger = logger
        self.metrics = metrics
        pages = FeedResponses(capacity: sharedPages)
        signal = Signal()
        tickets.onTicketChanges { [signal, streamSignal] changes in
            signal.publish(changes)
            streamSignal.publish(changes)
        }
        events.onOrderEvents { [followers] events in followers.publish(events) }
    }

    // MARK: - Where the feed stands

    /// The latest change of a café known to this process (read from the database the first time).
    func latest(cafeID: String) async throws -> Int64 {
        if watched.withLock({ $0 }) == nil { try await catchUp() }
        return signal.latest(cafeID: cafeID)
    }

    /// Reads the changes committed since the last look (by any process) and wakes their
    /// displays and the followers of their orders.
    @inline(never)
    func catchUp() async throws {
        let after = watched.withLock { $0 } ?? 0
        let head = try await tickets.changes(after: after)
        signal.publish(head.cafes)
        streamSignal.publish(head.cafes)
        watched.withLock { $0 = max($0 ?? 0, head.latest) }
        try await catchUpEvents(head: head.latest)
    }

    /// Hands the order events committed since the last look to the followers of their orders.
    /// `head` was read before: every event up to it has committed. While nobody follows an
    /// order nothing is read; a follower that arrives later reads its order after it started
    /// following, which is after `head` was read, so it misses nothing by that.
    private func catchUpEvents(head: Int64) async throws {
        guard followers.count > 0, var after = eventsWatched.withLock({ $0 }) else {
            eventsWatched.withLock { $0 = max($0 ?? 0, head) }
            return
        }
        while true {
            let batch = try await events.events(after: after, limit: Self.pageSize)
            followers.publish(batch)
            after = batch.last?.sequence ?? after
            if batch.count < Self.pageSize { break }
        }
        // The events were read after `head`: every event up to it was among them or before.
        eventsWatched.withLock { $0 = max($0 ?? 0, after, head) }
    }

    /// Watches the database for changes written by other processes until shutdown, then
    /// answers every parked display and ends every event stream at once.
    public func run() async throws {
        await withGracefulShutdownHandler {
            try? await cancelWhenGracefulShutdown {
                var failing = false
                while true {
                    do {
                        try await self.catchUp()
                        if failing { self.logger.notice("reading the kitchen feed's changes works again") }
                        failing = false
                    } catch is CancellationError {
                        return  // shutting down: not a failure worth a warning
                    } catch {
                        // Once per outage, not every interval of it.
                        if !failing { self.logger.warning("reading the kitchen feed's changes failed: \(error)") }
                        failing = true
                    }
                    try await Task.sleep(for: self.watchInterval)
                }
            }
        } onGracefulShutdown: {
            self.serverIsStopping()
        }
        serverIsStopping()
    }

    /// The server is shutting down: every parked display and every order follower is answered
    /// now with what it has, every event stream ends, and later waits return at once.
    public func serverIsStopping() {
        signal.releaseAll()
        streamSignal.releaseAll()
        followers.releaseAll()
    }

    /// Displays parked in a long-poll right now.
    public var waitingDisplays: Int { signal.waiterCount }

    /// Ticket event streams open right now.
    public var openStreams: Int { streams.load(ordering: .relaxed) }

    // MARK: - Following one order

    /// Starts following an order: its events committed from now on are kept for the follower,
    /// so read the order after calling this.
    public func follow(orderID: String) -> OrderFollower { OrderFollower(orderID: orderID, followers: followers) }

    /// Clients following an order right now.
    public var orderFollowers: Int { followers.count }

    // MARK: - Pages

    /// What a display gets: a page of changes, or nothing new since what it already has.
    enum Answer {
        case page(FeedResponses.Rendered)
        case unchanged(cursor: Int64)
    }

    /// The tickets of `cafe` changed after `after` (its open tickets without a cursor), rendered
    /// for `presentation`. A display that already holds everything up to `known` (the cursor in
    /// its `If-None-Match`) gets `unchanged` while nothing moved; with `wait`, the answer waits
    /// for a change up to that long.
    func page(
        cafe: Cafe, after: Int64?, station: String?, known: Int64?, wait: Duration,
        presentation: Presentation
    ) async throws -> Answer {
        let deadline = ContinuousClock.now + wait
        let question = FeedResponses.Question(
            cafeID: cafe.id, after: after, station: station,
            variant: presentation.variant)
        var baseline = after ?? known
        // When the change that woke this display was published (for the wake-up delay metric).
        var woken: ContinuousClock.Instant?
        while true {
            var latest = try await latest(cafeID: cafe.id)
            var prepared: FeedResponses.Rendered?
            if let seen = baseline, seen >= latest {
                // Once woken, the page is rendered before the display resumes, once for all
                // displays asking the same question. A server beginning a graceful shutdown
                // answers every waiter through `serverIsStopping()` (each connection's
                // `ProtocolGuard` calls it when told to quiesce), not a shutdown handler per
                // waiter: two thousand registrations, and as many removals, per wake-up.
                let preparation = Signal.Preparation(question: question) { [self] latest in
                    try? await render(cafe, question, latest: latest, presentation)
                }
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero,
                    case .changed(let changed, let page, let published) = await signal.wait(
                        cafeID: cafe.id, after: seen, timeout: remaining, preparing: preparation)
                else {
                    if let known, known == seen { return .unchanged(cursor: known) }
                    return .page(
                        FeedResponses.Rendered(
                            body: JSONWriter.encode(TicketFeedDTO(tickets: [], cursor: String(seen))),
                            cursor: seen, isEmpty: true, headers: presentation.headers))
                }
                woken = published
                (latest, prepared) = (changed, page)
            }
            let page: FeedResponses.Rendered
            if let prepared {
                page = prepared
            } else {
                page = try await render(cafe, question, latest: latest, presentation)
            }
            if !Self.answers(page, after: after), deadline > ContinuousClock.now {
                baseline = max(baseline ?? 0, latest)
                continue
            }
            if let woken { metrics.feedWoken(since: woken) }
            return .page(page)
        }
    }

    /// Whether a woken display asking for changes after `after` is answered with `page`: a page of
    /// other stations' changes only is no answer for a display with a cursor, which keeps waiting
    /// past them (until its deadline).
    private static func answers(_ page: FeedResponses.Rendered, after: Int64?) -> Bool {
        !(page.isEmpty && after != nil)
    }

    /// The page for this question while the café's latest change is `latest`, read and
    /// encoded once for every display asking it (as an answer's body or as a stream's event).
    ///
    /// Never inlined, nor is `catchUp`: inlined, their locals would join the frame of the
    /// stream's step, which an idle stream keeps in its connection's task (3.4 KB instead of
    /// a few hundred bytes while it waits).
    @inline(never)
    func render(
        _ cafe: Cafe, _ question: FeedResponses.Question, latest: Int64,
        _ presentation: Presentation
    ) async throws -> FeedResponses.Rendered {
        let tickets = tickets
        return try await pages.page(for: FeedResponses.Key(question: question, latest: latest)) {
            let page = try await tickets.ticketChanges(
                cafeID: cafe.id, after: question.after,
                station: question.station, limit: Self.pageSize)
            let body = JSONWriter.encode(
                TicketFeedDTO(
                    tickets: page.tickets.map { TicketDTO($0, cafe: cafe, presentation: presentation) },
                    cursor: String(page.cursor)))
            if question.form == .event {
                return .event(
                    json: body, cursor: page.cursor, isEmpty: page.tickets.isEmpty,
                    snapshot: question.after == nil)
            }
            // The variant holds the language, which is also the answer's Content-Language: one
            // page, one set of headers.
            return FeedResponses.Rendered(
                body: body, cursor: page.cursor, isEmpty: page.tickets.isEmpty,
                headers: presentation.headers)
        }
    }
}
