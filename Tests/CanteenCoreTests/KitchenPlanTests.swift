import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Firing by prep time and ready times")
struct KitchenPlanTests {
    /// The test café with station prep times: grill 8 min, cold 5 min, bar 2 min.
    static func timing(fireByPrepTime: Bool = true, stations: [StationSettings]? = nil) throws -> KitchenTiming {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        cafe.kitchen = KitchenSettings(
            stations: stations ?? [
                StationSettings(id: "grill", prepSeconds: 480),
                StationSettings(id: "cold", prepSeconds: 300),
                StationSettings(id: "bar", prepSeconds: 120),
            ],
            fireByPrepTime: fireByPrepTime)
        return KitchenTiming(cafe: cafe, menu: menu)
    }

    let now = Fixtures.chicagoMonday(hour: 9)

    func window(startingIn minutes: Double, length: Double = 15) -> PickupWindow {
        PickupWindow(start: now + minutes * 60, end: now + (minutes + length) * 60)
    }

    func ticket(_ station: String, _ prep: Int?) -> TicketTiming { TicketTiming(station: station, prepSeconds: prep) }

    // MARK: - Firing

    @Test("two stations: the longest fires at once, the shorter is held until the longest's finish minus its prep")
    func twoStations() throws {
        // Given an idle kitchen and an order for a burrito (8 min) and a latte (2 min), as soon as possible
        let plan = KitchenPlan(
            tickets: [ticket("bar", 120), ticket("grill", 480)], pickup: window(startingIn: 10),
            scheduled: false, timing: try Self.timing(), load: .idle(at: now))
        // Then the grill fires now, the bar 6 minutes later, and both are ready at +8 minutes
        #expect(plan.tickets.map(\.station) == ["bar", "grill"])
        #expect(plan.tickets[1].status == .new && plan.tickets[1].fireAt == nil)
        #expect(plan.tickets[0].status == .held && plan.tickets[0].fireAt == now + 360)
        #expect(plan.tickets.map(\.expectedFinish) == [now + 480, now + 480])
        #expect(plan.readyAt == now + 480)
    }

    @Test("the ticket that fires at once is not held for the rounding of its start to the millisecond")
    func noHeldForRounding() throws {
        // Found by the multi-server test: a real clock's instant rounds up half the time.
        let real = Date(timeIntervalSince1970: 1_800_000_000.0006)
        let plan = KitchenPlan(
            tickets: [ticket("grill", 480), ticket("bar", 120)],
            pickup: PickupWindow(start: real + 600, end: real + 1500), scheduled: false,
            timing: try Self.timing(), load: .idle(at: real))
        #expect(plan.tickets.map(\.status) == [.new, .held])
        #expect(plan.tickets[1].fireAt == Date(timeIntervalSince1970: 1_800_000_360.001))
    }

    @Test("three stations: each shorter ticket is held so that all three finish together")
    func threeStations() throws {
        let plan = KitchenPlan(
            tickets: [ticket("bar", 120), ticket("cold", 300), ticket("grill", 600)],
            pickup: window(startingIn: 10), scheduled: false, timing: try Self.timing(),
            load: .idle(at: now))
        #expect(plan.tickets.map(\.fireAt) == [now + 480, now + 300, nil])
        #expect(plan.tickets.map(\.status) == [.held, .held, .new])
        #expect(Set(plan.tickets.map(\.expectedFinish)) == [now + 600])
        #expect(plan.readyAt == now + 600)
    }

    @Test("a later window chosen by the guest: the longest ticket starts at the window's start minus its prep")
    func laterWindow() throws {
        let later = window(startingIn: 60)
        let plan = KitchenPlan(
            tickets: [ticket("grill", 480), ticket("bar", 120)], pickup: later, scheduled: true,
            timing: try Self.timing(), load: .idle(at: now))
        #expect(plan.tickets.map(\.fireAt) == [later.start - 480, later.start - 120])
        #expect(plan.tickets.allSatisfy { $0.status == .held })
        #expect(plan.readyAt == later.start)
        // The same window "as soon as possible" starts at once.
        let asap = KitchenPlan(
            tickets: [ticket("grill", 480)], pickup: later, scheduled: false,
            timing: try Self.timing(), load: .idle(at: now))
        #expect(asap.tickets[0].fireAt == nil && asap.readyAt == now + 480)
    }

    @Test("with fireByPrepTime off every ticket fires at once")
    func firingOff() throws {
        let plan = KitchenPlan(
            tickets: [ticket("bar", 120), ticket("grill", 480)], pickup: window(startingIn: 60),
            scheduled: true, timing: try Self.timing(fireByPrepTime: false), load: .idle(at: now))
        #expect(plan.tickets.allSatisfy { $0.status == .new && $0.fireAt == nil })
        #expect(plan.readyAt == now + 480)
    }

    @Test("an untimed kitchen fires everything at once and expects the order at its window's start")
    func untimed() throws {
        let (cafe, menu) = try Fixtures.cafeAndMenu()
        let timing = KitchenTiming(cafe: cafe, menu: menu)
        #expect(!timing.isTimed)
        let plan = KitchenPlan(
            tickets: timing.tickets(for: ["latte", "salad"]), pickup: window(startingIn: 30),
            scheduled: true, timing: timing, load: .idle(at: now))
        #expect(plan.tickets.allSatisfy { $0.status == .new })
        #expect(plan.readyAt == now + 1800)
        #expect(plan.meets(window(startingIn: -100)))
        let soon = KitchenPlan(
            tickets: timing.tickets(for: ["latte"]), pickup: window(startingIn: 0), scheduled: false,
            timing: timing, load: .idle(at: now))
        #expect(soon.readyAt == now + TimeInterval(KitchenTiming.assumedPrepSeconds))
    }

    @Test("an order's tickets: one per station in the order of its first line, as long as its longest item")
    func ticketsOfAnOrder() throws {
        var (cafe, menu) = try Fixtures.cafeAndMenu()
        menu.items[0].prepSeconds = 90  // latte, bar
        menu.items.append(
            MenuItem(
                id: "mocha", category: "coffee", names: menu.items[0].names,
                descriptions: menu.items[0].descriptions, price: 500, station: "bar", allergens: [],
                dayParts: [], modifierGroups: [], prepSeconds: 150))
        cafe.kitchen.stations = [StationSettings(id: "cold", prepSeconds: 240)]
        let timing = KitchenTiming(cafe: cafe, menu: menu)
        #expect(timing.isTimed)
        #expect(
            timing.tickets(for: ["salad", "latte", "nothing", "mocha", "burrito"])
                == [ticket("cold", 240), ticket("bar", 150), ticket("grill", nil)])
    }

    // MARK: - Ready times from the queue

    @Test("tickets already waiting at a station delay the order, and the others are held until its real finish")
    func queueDelays() throws {
        // Given two burritos waiting at a grill with one cook (no history)
        let load = KitchenLoad(
            now: now,
            open: [
                OpenTicket(station: "grill", status: .new, prepSeconds: 480, availableAt: now - 60),
                OpenTicket(station: "grill", status: .new, prepSeconds: 480, availableAt: now - 30),
            ], finished: [])
        // When an order of a burrito and a latte is planned
        let plan = KitchenPlan(
            tickets: [ticket("grill", 480), ticket("bar", 120)], pickup: window(startingIn: 0, length: 60),
            scheduled: false, timing: try Self.timing(), load: load)
        // Then the burrito is ready after the two ahead, and the latte is held to finish with it
        #expect(plan.readyAt == now + 3 * 480)
        #expect(plan.tickets[1].fireAt == now + 3 * 480 - 120)
        // And a window ending before that is refused as kitchen_busy, one ending after is met
        #expect(!plan.meets(window(startingIn: 0)))
        #expect(plan.meets(window(startingIn: 15, length: 15)))
    }

    @Test("a ticket being prepared counts for what is left of it; held tickets queue from their fire time")
    func preparingAndHeld() throws {
        let load = KitchenLoad(
            now: now,
            open: [
                OpenTicket(
                    station: "grill", status: .preparing, prepSeconds: 480, availableAt: now - 400, startedAt: now - 300
                ),
                OpenTicket(station: "grill", status: .held, prepSeconds: 480, availableAt: now + 600),
                OpenTicket(station: "grill", status: .ready, prepSeconds: 480, availableAt: now - 900),
            ],
            // A ticket that waited 100 s for the grill's one cook: the grill is known to be at full stretch.
            finished: [
                FinishedTicket(
                    station: "grill", prepSeconds: 480, firedAt: now - 3000, startedAt: now - 2900,
                    finishedAt: now - 2420)
            ])
        // The one being prepared has 180 s left; the held one fires after this order reaches the grill.
        #expect(load.estimatedFinish(station: "grill", prepSeconds: 480, availableAt: now) == now + 180 + 480)
        // A ticket reaching the grill after the held one queues behind it, and behind the 96 s of work
        // the last 50 minutes' rate (960 prep-seconds) says arrives in the five minutes before it fires.
        #expect(
            load.estimatedFinish(station: "grill", prepSeconds: 480, availableAt: now + 700)
                == now + 600 + 480 + 96 + 480)
        // Without that history a quiet grill is assumed to have a cook free: the new ticket starts at once.
        let quiet = KitchenLoad(now: now, open: load.open, finished: [])
        #expect(quiet.estimatedFinish(station: "grill", prepSeconds: 480, availableAt: now) == now + 480)
    }

    @Test("a held ticket also finds ahead of it the work of orders not placed yet, for five minutes before it fires")
    func futureArrivals() {
        // Given a bar whose one cook took 120-second tickets one after another for the last 20 minutes
        let history = (0..<10).map { index in
            let fired = now - 1200 + Double(index) * 120
            return FinishedTicket(
                station: "bar", prepSeconds: 120, firedAt: fired, startedAt: fired,
                finishedAt: fired + 120)
        }
        // and, earlier, a ticket held (it fired after later orders' tickets: not work arriving at once)
        let held = FinishedTicket(
            station: "bar", prepSeconds: 120, firedAt: now - 2400, startedAt: now - 2400,
            finishedAt: now - 2280, wasHeld: true)
        // with five tickets waiting now (and a ready one, counted among the finished, not twice)
        let waiting = (0..<5).map { _ in OpenTicket(station: "bar", status: .new, prepSeconds: 120, availableAt: now) }
        let ready = OpenTicket(station: "bar", status: .ready, prepSeconds: 120, availableAt: now - 120)
        let load = KitchenLoad(now: now, open: waiting + [ready], finished: history + [held])
        // Then work reached the bar at once at 1.5 prep-seconds per second (20 minutes' tickets and the five)
        #expect(abs(load.arrivalRate(of: "bar") - 1.5) < 0.0001)
        // A ticket reaching the bar now waits for the five; one held ten minutes also for the five
        // minutes of orders still to come before it fires (its cook is busy until then).
        #expect(load.estimatedFinish(station: "bar", prepSeconds: 120, availableAt: now) == now + 600 + 120)
        #expect(
            load.estimatedFinish(station: "bar", prepSeconds: 120, availableAt: now + 600)
                == now + 600 + 450 + 120)
        // One held until the bar would be idle for a while finds the coming work done by then.
        #expect(load.estimatedFinish(station: "bar", prepSeconds: 120, availableAt: now + 1200) == now + 1200 + 120)
    }

    @Test("throughput is learnt from the last hour: cooks working at once, and speed against prep times")
    func throughputLearnt() {
        // Given two cooks who each took 10 minutes over 8-minute tickets, side by side
        let start = now - 3000
        var finished: [FinishedTicket] = []
        for round in 0..<3 {
            for _ in 0..<2 {
                let started = start + Double(round) * 600
                finished.append(
                    FinishedTicket(
                        station: "grill", prepSeconds: 480, firedAt: started - 30,
                        startedAt: started, finishedAt: started + 600))
            }
        }
        // A ticket bumped in passing says nothing of how long tickets take
        finished.append(
            FinishedTicket(
                station: "grill", prepSeconds: 480, firedAt: now - 100, startedAt: now - 99,
                finishedAt: now - 98))
        let throughput = StationThroughput.learned(from: finished, preparingNow: 0)
        #expect(throughput.cooks == 2)
        #expect(abs(throughput.speed - 0.8) < 0.0001)
        // Then four burritos waiting take two rounds of 10 minutes before a fifth starts
        let load = KitchenLoad(
            now: now,
            open: (0..<4).map { _ in
                OpenTicket(station: "grill", status: .new, prepSeconds: 480, availableAt: now - 10)
            }, finished: finished)
        #expect(load.estimatedFinish(station: "grill", prepSeconds: 480, availableAt: now) == now + 3 * 600)
        // And tickets being prepared now count as cooks at work
        // Tickets being prepared now count as cooks at work; while nothing waits, one more is assumed
        #expect(
            StationThroughput.learned(from: [], preparingNow: 3, waitingNow: 2) == StationThroughput(cooks: 3, speed: 1)
        )
        #expect(StationThroughput.learned(from: [], preparingNow: 3) == StationThroughput(cooks: 4, speed: 1))
        #expect(StationThroughput.learned(from: [], preparingNow: 0) == .unknown)
        // A ticket that waited a minute for a cook shows the station at full stretch: no spare cook
        let waited = FinishedTicket(
            station: "grill", prepSeconds: 480, firedAt: now - 2000, startedAt: now - 1900,
            finishedAt: now - 1420)
        #expect(StationThroughput.learned(from: [waited], preparingNow: 1) == StationThroughput(cooks: 1, speed: 1))
    }

    // MARK: - Windows the kitchen cannot meet

    @Test(
        "asap takes the earliest window with room the kitchen can meet; a chosen window it cannot meet is kitchen_busy")
    func windowChoice() throws {
        let timing = try Self.timing()
        let load = KitchenLoad(
            now: now,
            open: (0..<4).map { _ in
                OpenTicket(station: "grill", status: .new, prepSeconds: 480, availableAt: now - 10)
            }, finished: [])
        let planner = PickupWindowPlanner()
        let cafe = timing.cafe
        let plan = { (window: PickupWindow, scheduled: Bool) in
            KitchenPlan(
                tickets: [TicketTiming(station: "grill", prepSeconds: 480)], pickup: window, scheduled: scheduled,
                timing: timing, load: load)
        }
        // 09:00, lead 10 minutes: windows of 15 minutes from 09:15; the burrito is ready at 09:40.
        let asap = try planner.candidates(for: .asap, of: cafe, now: now)
        let chosen = try asap.choose(units: 1, used: [:], plan: { plan($0, false) })
        #expect(chosen.window.start == now + 30 * 60)
        #expect(chosen.plan?.readyAt == now + 40 * 60)
        let first = now + 15 * 60
        let explicit = try planner.candidates(for: .window(start: first), of: cafe, now: now)
        #expect {
            try explicit.choose(units: 1, used: [:], plan: { plan($0, true) })
        } throws: { error in
            (error as? CanteenError)?.code == .kitchenBusy && (error as? CanteenError)?.field == "pickup.start"
        }
        // A full window is full first, whatever the kitchen
        #expect {
            try explicit.choose(units: 1, used: [first: cafe.pickup.capacity], plan: { plan($0, true) })
        } throws: { error in (error as? CanteenError)?.code == .pickupWindowFull }
        // The windows listed: the first two are busy for any order the grill alone can make
        let windows = planner.offeredWindows(of: cafe, on: LocalDate(now, in: cafe.calendar), now: now)
        let grillOnly = try Self.timing(stations: [StationSettings(id: "grill", prepSeconds: 480)])
        var grillMenu = grillOnly.menu
        grillMenu.items = grillMenu.items.filter { $0.station == "grill" }
        let busy = KitchenPlan.busyWindows(
            windows, timing: KitchenTiming(cafe: grillOnly.cafe, menu: grillMenu),
            load: load)
        // (for the second, the grill also expects the work of the orders coming in the five minutes
        // before its start, at the rate the four burritos came: 1,920 prep-seconds in ten minutes)
        #expect(busy == [windows[0].start, windows[1].start])
        // With a bar ticket possible, every window can be met by some order
        #expect(KitchenPlan.busyWindows(windows, timing: timing, load: load).isEmpty)
        #expect(
            KitchenPlan.busyWindows(windows, timing: timing, load: load, itemIDs: ["burrito"])
                == [windows[0].start, windows[1].start])
    }

    // MARK: - Tickets held

    @Test("a held ticket fires (held → new) and may be cancelled; nothing moves back to held")
    func heldTransitions() throws {
        #expect(TicketStatus.held.canMove(to: .new))
        #expect(TicketStatus.held.canMove(to: .cancelled))
        #expect(TicketStatus.held.isOpen)
        for status in TicketStatus.allCases {
            #expect(!status.canMove(to: .held), "\(status) → held")
        }
        #expect(!TicketStatus.held.canMove(to: .preparing))
        #expect(!TicketStatus.new.canMove(to: .held))
    }

    @Test("firing a held ticket never changes its order's status, and a replay shows it held again")
    func firingKeepsOrderStatus() throws {
        for others in [[TicketStatus.held], [.new], [.preparing], [.ready], [.cancelled], [.held, .preparing]] {
            #expect(OrderStatus(tickets: [.held] + others) == OrderStatus(tickets: [.new] + others), "\(others)")
        }
        #expect(OrderStatus(tickets: [.held, .new]) == .placed)
        let placed = Date(timeIntervalSince1970: 1_800_000_000)
        let held = Ticket(
            id: "t1", orderID: "o", cafeID: "c", station: "bar", status: .held, sequence: 1,
            createdAt: placed, updatedAt: placed, prepSeconds: 120, fireAt: placed + 360)
        let fired = try held.moved(to: .new, at: placed + 361)
        #expect(fired.firedAt == placed + 361 && fired.fireAt == placed + 360)
        let order = Order(
            id: "o", cafeID: "c", number: 1, customer: Customer(name: "A", userID: nil),
            pickup: PickupWindow(start: placed, end: placed + 900), lines: [],
            subtotal: .zero(.usd), tax: .zero(.usd), total: .zero(.usd), createdAt: placed,
            tickets: [try fired.moved(to: .preparing, at: placed + 400)], readyAt: placed + 480)
        #expect(order.asPlaced.tickets[0].status == .held)
        #expect(order.asPlaced.tickets[0].firedAt == nil && order.asPlaced.tickets[0].startedAt == nil)
    }

    @Test("moves keep the kitchen times: started, finished, and an undo clears its step's time")
    func kitchenTimes() throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ticket = Ticket(
            id: "t", orderID: "o", cafeID: "c", station: "grill", status: .new, sequence: 1,
            createdAt: t0, updatedAt: t0, firedAt: t0)
        let started = try ticket.moved(to: .preparing, at: t0 + 10)
        #expect(started.startedAt == t0 + 10)
        let ready = try started.moved(to: .ready, at: t0 + 500)
        #expect(ready.finishedAt == t0 + 500)
        #expect(try ready.moved(to: .preparing, at: t0 + 510).finishedAt == nil)
        #expect(try started.moved(to: .new, at: t0 + 20).startedAt == nil)
        #expect(throws: CanteenError.self) { try ticket.moved(to: .ready, at: t0 + 1) }
    }

    // MARK: - Live times

    @Test("live times: held and open tickets, median and p90 fired → ready, queue in seconds of prep")
    func liveTimes() {
        let finished = [300.0, 420, 480, 500, 510, 520, 600, 700, 900, 1200].map {
            FinishedTicket(
                station: "grill", prepSeconds: 480, firedAt: now - 2000, startedAt: nil,
                finishedAt: now - 2000 + $0)
        }
        let load = KitchenLoad(
            now: now,
            open: [
                OpenTicket(station: "grill", status: .held, prepSeconds: 480, availableAt: now + 60),
                OpenTicket(station: "grill", status: .new, prepSeconds: 480, availableAt: now),
                OpenTicket(
                    station: "grill", status: .preparing, prepSeconds: 480, availableAt: now - 300,
                    startedAt: now - 200),
                OpenTicket(station: "grill", status: .ready, prepSeconds: 480, availableAt: now - 900),
                OpenTicket(station: "bar", status: .new, prepSeconds: nil, availableAt: now),
            ], finished: finished)
        let report = StationTimes.report(load, stations: ["grill", "cold"])
        #expect(report.map(\.station) == ["grill", "cold", "bar"])
        #expect(report[0].heldTickets == 1 && report[0].openTickets == 3)
        #expect(report[0].medianSeconds == 510 && report[0].p90Seconds == 900)
        #expect(report[0].finishedLastHour == 10)
        #expect(report[0].queueSeconds == 480 + 280)
        #expect(report[1].medianSeconds == nil && report[1].openTickets == 0)
        #expect(report[2].queueSeconds == KitchenTiming.assumedPrepSeconds)
    }
}
