import Foundation

/// The windows one order's pickup choice is made among, and the rule that picks one given the
/// capacity already used: the requested window if it is offered and has room, or (`asap`) the
/// earliest offered one with room. Both stores apply it inside the transaction that takes the
/// capacity.
public struct PickupCandidates: Sendable {
    public let cafe: Cafe
    public let choice: PickupChoice
    /// The café-local date the choice falls on.
    public let date: LocalDate
    /// Every window of that date.
    public let all: [PickupWindow]
    /// The windows still offered at the order's instant (lead time applied).
    public let offered: [PickupWindow]

    /// The window for an order of `units`, given the units each window start already used.
    public func choose(units: Int, used: [Date: Int]) throws -> PickupWindow {
        try choose(units: units, used: used, plan: nil).window
    }

    /// The window for an order of `units` and its kitchen plan for that window: the requested
    /// window if it is offered, has room and the kitchen can meet it (`kitchen_busy` when it
    /// cannot), or (`asap`) the earliest offered window with room that the kitchen can meet
    /// (`kitchen_busy` when windows have room but the kitchen meets none of them).
    /// - Parameter plan: the order's kitchen plan for a window; nil: every window is met.
    public func choose(
        units: Int, used: [Date: Int],
        plan: ((PickupWindow) -> KitchenPlan)?
    ) throws -> (window: PickupWindow, plan: KitchenPlan?) {
        let hasRoom = { (window: PickupWindow) in (used[window.start] ?? 0) + units <= cafe.pickup.capacity }
        switch choice {
        case .asap:
            guard !offered.isEmpty else {
                throw CanteenError(
                    .invalid, code: .cafeClosed,
                    message: "café '\(cafe.id)' has no pickup window left today", field: "pickup")
            }
            var busy: (KitchenPlan, PickupWindow)?
            for window in offered where hasRoom(window) {
                guard let plan else { return (window, nil) }
                let planned = plan(window)
                if planned.meets(window) { return (window, planned) }
                if busy == nil { busy = (planned, window) }
            }
            if let (planned, window) = busy {
                throw CanteenError.kitchenBusy(field: "pickup", readyAt: planned.readyAt, window: window)
            }
            throw CanteenError.windowFull(field: "pickup", windowStart: offered[0].start, cafeID: cafe.id)
        case .window(let start):
            guard let window = offered.first(where: { $0.start == start }) else {
                let reason =
                    all.contains { $0.start == start }
                    ? "starts too soon: the earliest window starts \(cafe.pickup.leadMinutes) minutes from now"
                    : "is not one of the café's pickup windows on \(date)"
                throw CanteenError(
                    .invalid, code: .pickupWindowUnavailable, message: "the window \(reason)",
                    field: "pickup.start")
            }
            guard hasRoom(window) else {
                throw CanteenError.windowFull(field: "pickup.start", windowStart: window.start, cafeID: cafe.id)
            }
            guard let plan else { return (window, nil) }
            let planned = plan(window)
            guard planned.meets(window) else {
                throw CanteenError.kitchenBusy(field: "pickup.start", readyAt: planned.readyAt, window: window)
            }
            return (window, planned)
        }
    }
}

extension PickupWindowPlanner {
    /// The windows `choice` is made among at `now`; `cafe_closed` when the café has none that day.
    public func candidates(for choice: PickupChoice, of cafe: Cafe, now: Date) throws -> PickupCandidates {
        let date: LocalDate
        switch choice {
        case .asap: date = LocalDate(now, in: cafe.calendar)
        case .window(let start): date = LocalDate(start, in: cafe.calendar)
        }
        let all = windows(of: cafe, on: date)
        guard !all.isEmpty else {
            throw CanteenError(
                .invalid, code: .cafeClosed, message: "café '\(cafe.id)' is closed on \(date)",
                field: "pickup", parameters: ["date": date.description])
        }
        return PickupCandidates(
            cafe: cafe, choice: choice, date: date, all: all,
            offered: offeredWindows(of: cafe, on: date, now: now))
    }
}

extension CanteenError {
    /// 409 `pickup_window_full` naming the field the window came from; `windowStart` (the full
    /// window, or the first one offered when every one was) is kept for the windows report.
    public static func windowFull(field: String, windowStart: Date? = nil, cafeID: String? = nil) -> CanteenError {
        var parameters: [String: String] = [:]
        if let windowStart, let cafeID {
            parameters = ["windowStart": String(Int64(windowStart.timeIntervalSince1970)), "cafe": cafeID]
        }
        return CanteenError(
            .conflict, code: .pickupWindowFull, message: "the pickup window is full; choose another",
            field: field, parameters: parameters)
    }

    /// The start of the full window a `pickup_window_full` error names, if it names one.
    public var fullWindowStart: Date? {
        guard code == .pickupWindowFull, let text = parameters["windowStart"], let seconds = Int64(text) else {
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
