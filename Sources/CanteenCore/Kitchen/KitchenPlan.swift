import Foundation

/// When each ticket of an order fires and when the order will be ready.
///
/// Firing by prep time: the ticket with the longest prep starts at once, or, for a later
/// pickup window chosen by the guest, at the window's start minus its prep time; each other
/// ticket is held until the longest one's expected finish minus its own prep, so that the
/// order finishes together. A fire time that is not in the future fires at once. With firing
/// turned off every ticket fires at once. The longest ticket's finish, and so the others' fire
/// times, come from the station's queue (`KitchenLoad.estimatedFinish`): on an idle kitchen that
/// is its start plus its prep.
///
/// `readyAt` is the latest expected finish of the order's tickets, each from its fire time
/// behind its station's queue at the station's measured throughput.
public struct KitchenPlan: Hashable, Sendable {
    /// One planned ticket: held until `fireAt`, or fired at once (`fireAt` nil).
    public struct PlannedTicket: Hashable, Sendable {
        public var station: String
        public var prepSeconds: Int?
        public var fireAt: Date?
        public var expectedFinish: Date

        public var status: TicketStatus { fireAt == nil ? .new : .held }
    }

    public var tickets: [PlannedTicket]
    public var readyAt: Date
    /// Whether the plan comes from a timed kitchen (an untimed one meets every window).
    public var isTimed: Bool

    /// The plan of an order's `tickets` (in order) for `pickup`, placed at `load.now`.
    /// - Parameters:
    ///   - scheduled: the guest chose this window (not "as soon as possible").
    ///   - timing: the café's timing; an untimed kitchen fires everything at once and expects
    ///     the order at the window's start (or `assumedPrepSeconds` from now, if later).
    public init(
        tickets: [TicketTiming], pickup: PickupWindow, scheduled: Bool, timing: KitchenTiming,
        load: KitchenLoad
    ) {
        let now = load.now
        guard timing.isTimed, !tickets.isEmpty else {
            let ready = Self.milliseconds(max(pickup.start, now + TimeInterval(KitchenTiming.assumedPrepSeconds)))
            self.tickets = tickets.map {
                PlannedTicket(station: $0.station, prepSeconds: $0.prepSeconds, fireAt: nil, expectedFinish: ready)
            }
            readyAt = ready
            isTimed = false
            return
        }
        let prep = { (ticket: TicketTiming) in ticket.prepSeconds ?? KitchenTiming.assumedPrepSeconds }
        var fireTimes = [Date](repeating: now, count: tickets.count)
        if timing.cafe.kitchen.fireByPrepTime {
            let longest = tickets.indices.max { prep(tickets[$0]) < prep(tickets[$1]) } ?? 0
            let longestPrep = TimeInterval(prep(tickets[longest]))
            let start = scheduled ? max(now, pickup.start - longestPrep) : now
            let finish = load.estimatedFinish(
                station: tickets[longest].station,
                prepSeconds: tickets[longest].prepSeconds, availableAt: start)
            for index in tickets.indices {
                fireTimes[index] = index == longest ? start : max(now, finish - TimeInterval(prep(tickets[index])))
            }
        }
        var planned: [PlannedTicket] = []
        for (ticket, fireAt) in zip(tickets, fireTimes) {
            let fire = Self.milliseconds(fireAt)
            let finish = Self.milliseconds(
                load.estimatedFinish(
                    station: ticket.station, prepSeconds: ticket.prepSeconds,
                    availableAt: fireAt))
            // Held only for a fire time a millisecond or more away (the one fired at once is not
            // held for the rounding of its start).
            planned.append(
                PlannedTicket(
                    station: ticket.station, prepSeconds: ticket.prepSeconds,
                    fireAt: fireAt.timeIntervalSince(now) >= 0.001 ? fire : nil, expectedFinish: finish))
        }
        self.tickets = planned
        readyAt = planned.map(\.expectedFinish).max() ?? now
        isTimed = true
    }

    /// `date` in whole milliseconds: the stores keep instants to the millisecond.
    static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// The order's tickets as the queue will see them once placed.
    public func openTickets(at now: Date) -> [OpenTicket] {
        tickets.map {
            OpenTicket(
                station: $0.station, status: $0.status, prepSeconds: $0.prepSeconds, availableAt: $0.fireAt ?? now)
        }
    }

    /// Whether the order can be ready by the end of `pickup` (always, for an untimed kitchen).
    public func meets(_ pickup: PickupWindow) -> Bool { !isTimed || readyAt <= pickup.end }
}

extension CanteenError {
    /// 409 `kitchen_busy`: the kitchen's queue cannot have the order ready by the window's end.
    public static func kitchenBusy(field: String, readyAt: Date, window: PickupWindow) -> CanteenError {
        CanteenError(
            .conflict, code: .kitchenBusy,
            message: "the kitchen is too busy to have this order ready by the window's end; "
                + "it expects it at \(RFC3339.string(readyAt, timeZone: .utc)); choose a later window",
            field: field,
            parameters: [
                "readyAt": RFC3339.string(readyAt, timeZone: .utc),
                "windowEnd": RFC3339.string(window.end, timeZone: .utc),
            ])
    }
}

extension TimeZone {
    /// Coordinated Universal Time.
    static let utc = TimeZone(secondsFromGMT: 0)!
}

extension KitchenPlan {
    /// The starts of the windows among `windows` that the kitchen cannot meet: no order of
    /// `itemIDs` (when given), or else not even the quickest order of any station (its quickest
    /// item alone), could be ready by the window's end. An untimed kitchen meets every window.
    public static func busyWindows(
        _ windows: [PickupWindow], timing: KitchenTiming, load: KitchenLoad,
        itemIDs: [String]? = nil
    ) -> Set<Date> {
        guard timing.isTimed else { return [] }
        let orders: [[TicketTiming]]
        if let itemIDs {
            orders = [timing.tickets(for: itemIDs)].filter { !$0.isEmpty }
        } else {
            var quickest: [String: TicketTiming] = [:]
            for item in timing.menu.items {
                let ticket = TicketTiming(station: item.station, prepSeconds: timing.prepSeconds(of: item))
                let prep = ticket.prepSeconds ?? KitchenTiming.assumedPrepSeconds
                if let known = quickest[item.station], (known.prepSeconds ?? KitchenTiming.assumedPrepSeconds) <= prep {
                    continue
                }
                quickest[item.station] = ticket
            }
            orders = quickest.keys.sorted().compactMap { quickest[$0].map { [$0] } }
        }
        guard !orders.isEmpty else { return [] }
        var busy: Set<Date> = []
        for window in windows {
            let met = orders.contains { tickets in
                KitchenPlan(tickets: tickets, pickup: window, scheduled: true, timing: timing, load: load).meets(window)
            }
            if !met { busy.insert(window.start) }
        }
        return busy
    }
}
