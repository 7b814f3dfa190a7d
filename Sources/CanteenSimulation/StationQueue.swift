/// A station's fired tickets waiting for a cook, first fired first taken.
actor StationQueue {
    /// A ticket as the cooks see it.
    struct Ticket: Sendable {
        let id: String
        let orderID: String
        let orderNumber: Int
        let station: String
        let prepSeconds: Int
    }

    private var waiting: [Ticket] = []
    private var cooks: [CheckedContinuation<Ticket?, Never>] = []
    private var closed = false

    func offer(_ ticket: Ticket) {
        if !cooks.isEmpty {
            cooks.removeFirst().resume(returning: ticket)
        } else {
            waiting.append(ticket)
        }
    }

    /// The next ticket, waiting for one; nil once closed.
    func take() async -> Ticket? {
        if !waiting.isEmpty { return waiting.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { cooks.append($0) }
    }

    func close() {
        closed = true
        for cook in cooks { cook.resume(returning: nil) }
        cooks = []
    }
}
