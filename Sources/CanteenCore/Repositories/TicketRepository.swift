import Foundation

/// Where kitchen tickets are kept. Every change of a ticket takes the next value of one
/// sequence; a ticket's `sequence` is that of its latest change.
public protocol TicketRepository: Sendable {
    /// One ticket, or nil.
    func ticket(id: String) async throws -> TicketView?
    /// Moves a ticket to `status` (`invalid_transition` naming the current state when not allowed).
    func moveTicket(id: String, to status: TicketStatus) async throws -> TicketView
    /// At most `limit` tickets of a café changed after `cursor`, oldest change first, optionally
    /// of one station; without a cursor, the open tickets. The cursor of the page is the last
    /// change it holds (or, when the page is not full, the latest change of the whole feed).
    func ticketChanges(cafeID: String, after cursor: Int64?, station: String?, limit: Int) async throws
        -> TicketFeedPage
    /// The latest change committed by any writer, with the latest change of every café changed
    /// after `sequence` (all cafés with tickets for 0).
    func changes(after sequence: Int64) async throws -> FeedHead
    /// Called after every commit of this process that changed tickets, with each café's latest change.
    func onTicketChanges(_ observer: @escaping @Sendable ([String: Int64]) -> Void)
    /// How many tickets of the café are open (new, preparing or ready), for metrics.
    func openTicketCount(cafeID: String) async throws -> Int
    /// The café's open tickets counted by station and status, in one read (the console's overview).
    func openTicketCounts(cafeID: String) async throws -> OpenTicketCounts
}

extension TicketRepository {
    /// Counts the open tickets by reading them; a store can answer with one query instead.
    public func openTicketCount(cafeID: String) async throws -> Int {
        try await ticketChanges(cafeID: cafeID, after: nil, station: nil, limit: .max).tickets.count
    }
}
