import CanteenCore
import Foundation

extension TicketFeed {
    /// What a ticket event stream does next.
    enum StreamStep: Sendable {
        /// Send this page (an event) unless it holds no ticket and the stream already sent one.
        case page(FeedResponses.Rendered)
        /// Nothing changed until the deadline: time for a comment.
        case quiet
        /// The server is stopping: end the stream.
        case stopping
    }

    /// The next page of a ticket event stream that has sent everything up to `cursor` (nothing
    /// yet when nil: its first page is the café's open tickets). With `wait`, waits for a change
    /// until `deadline`; without, reads the page now (the first event of a stream that resumes,
    /// which tells the display that it has caught up, even while the server stops). Streams
    /// woken by one change that ask the same question (café, cursor, station, language) are
    /// given one page, rendered once.
    ///
    /// The stream is passed whole (a class): this frame is in the task's memory, which the
    /// connection keeps at its largest for as long as the stream stays open.
    func nextStreamStep(
        _ stream: TicketEventStream, after cursor: Int64?, wait: Bool, until deadline: ContinuousClock.Instant
    ) async throws -> StreamStep {
        let question = FeedResponses.Question(
            cafeID: stream.cafe.id, after: cursor, station: stream.station,
            variant: stream.presentation.variant, form: .event)
        var latest = try await latest(cafeID: question.cafeID)
        if wait, let cursor, cursor >= latest {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .quiet }
            let preparation = Signal.Preparation(question: question) { [self] latest in
                try? await render(stream.cafe, question, latest: latest, stream.presentation)
            }
            switch await streamSignal.wait(
                cafeID: question.cafeID, after: cursor, timeout: remaining, preparing: preparation)
            {
            case .ended:
                return streamSignal.isReleased ? .stopping : .quiet
            case .changed(_, let page?, let published):
                if let published, !page.isEmpty { metrics.feedWoken(since: published) }
                return .page(page)
            case .changed(let changed, nil, _):
                latest = changed
            }
        }
        return .page(try await render(stream.cafe, question, latest: latest, stream.presentation))
    }
}
