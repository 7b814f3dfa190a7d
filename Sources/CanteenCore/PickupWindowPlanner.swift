import Foundation

/// Lays out cafés' pickup windows and remembers each day's, per (zone, date, slot length,
/// that day's hours): every order asks for its day's windows inside the single writer, and
/// laying them out takes calendar work. One per application, bounded.
public final class PickupWindowPlanner: Sendable {
    private struct Key: Hashable, Sendable {
        let timeZone: String
        let date: LocalDate
        let slotMinutes: Int
        let spans: [LocalTimeRange]
    }

    private let schedules: BoundedCache<Key, [PickupWindow]>

    /// A planner remembering at most `capacity` days of cafés' windows.
    public init(capacity: Int = 4096) {
        schedules = BoundedCache(capacity: capacity)
    }

    /// Every window of `date` (café-local), in order, ignoring lead time and capacity.
    public func windows(of cafe: Cafe, on date: LocalDate) -> [PickupWindow] {
        let spans = cafe.hours[date.weekday] ?? []
        guard !spans.isEmpty else { return [] }
        let key = Key(
            timeZone: cafe.timeZone.identifier, date: date, slotMinutes: cafe.pickup.slotMinutes, spans: spans)
        return schedules.value(for: key) { cafe.pickupWindows(on: date) }
    }

    /// The windows of `date` a guest may still choose at `now`: starting at or after now + lead time.
    public func offeredWindows(of cafe: Cafe, on date: LocalDate, now: Date) -> [PickupWindow] {
        let earliest = now + TimeInterval(cafe.pickup.leadMinutes * 60)
        return windows(of: cafe, on: date).filter { $0.start >= earliest }
    }

    /// How many days of windows are remembered now.
    public var rememberedDays: Int { schedules.count }
}
