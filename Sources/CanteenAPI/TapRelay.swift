import Foundation
import Synchronization

/// Taps a kiosk's NFC agent reported, held for that kiosk's page: the agent (`canteen nfc watch`) and
/// the page act with the same kiosk token, and the page long-polls for what was tapped after its cursor.
///
/// Taps are moments, not records: each token keeps its last `capacity` taps for `lifetime` (a badge
/// tapped minutes ago must not take over the next customer's basket), in this server's memory only.
final class TapRelay: Sendable {
    /// One tap, as the page is told of it (rendered JSON, with its number for the cursor).
    struct Tap: Sendable {
        let id: Int64
        let at: ContinuousClock.Instant
        let json: Data
    }

    private struct State {
        var taps: [String: [Tap]] = [:]
        var next: Int64 = 0
    }

    private let state = Mutex(State())
    /// Wakes a waiting page; it reads the new taps itself (nothing is prepared for it).
    private let signal = FeedSignal<Never, Never>()
    let lifetime: Duration
    let capacity: Int

    init(lifetime: Duration = .seconds(60), capacity: Int = 20) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Keeps a tap for `tokenID`'s page, wakes a page waiting for it; returns its number.
    @discardableResult
    func add(tokenID: String, render: (Int64) -> Data) -> Int64 {
        let (id, latest) = state.withLock { state -> (Int64, Int64) in
            state.next += 1
            let id = state.next
            var taps = state.taps[tokenID, default: []]
            taps.append(Tap(id: id, at: .now, json: render(id)))
            if taps.count > capacity { taps.removeFirst(taps.count - capacity) }
            state.taps[tokenID] = taps
            return (id, id)
        }
        signal.publish([tokenID: latest])
        return id
    }

    /// The taps of `tokenID` after `cursor` that are still fresh; with `wait`, waits up to that long for one.
    /// Without a cursor: none (a page that just opened starts from now), and the cursor to start from.
    func taps(tokenID: String, after cursor: Int64?, wait: Duration) async -> (taps: [Tap], cursor: Int64) {
        let deadline = ContinuousClock.now + wait
        while true {
            let (fresh, latest) = state.withLock { state -> ([Tap], Int64) in
                let oldest = ContinuousClock.now - lifetime
                let taps = state.taps[tokenID, default: []].filter { $0.at >= oldest }
                state.taps[tokenID] = taps.isEmpty ? nil : taps
                return (taps.filter { $0.id > (cursor ?? .max) }, max(taps.last?.id ?? 0, state.next))
            }
            guard let cursor else { return ([], latest) }
            if !fresh.isEmpty { return (fresh, fresh.last!.id) }
            let remaining = deadline - .now
            guard remaining > .zero,
                await signal.wait(
                    cafeID: tokenID, after: max(cursor, signal.latest(cafeID: tokenID)),
                    timeout: remaining
                ).changed
            else { return ([], max(cursor, latest)) }
        }
    }
}
