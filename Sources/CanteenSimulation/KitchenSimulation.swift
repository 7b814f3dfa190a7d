import CanteenCore
import Foundation
import NIOHTTP1
import Synchronization

/// Replays a service against a real server and measures its ready times.
///
/// Orders arrive as the scenario's `ArrivalPlan` says and are placed over HTTP ("as soon as
/// possible"); each station's cooks take its fired tickets from the kitchen feed, first fired
/// first, mark them preparing, work for their prep time give or take the scenario's spread
/// (seeded: the same seed gives the same durations) and mark them ready. An order is ready
/// when its last ticket is. Each order's `readyAt`, quoted when it was placed, and the naive
/// quote (placing time plus its longest dish's prep time) are compared with that.
public struct KitchenSimulation: Sendable {
    let api: SimulationAPI
    let clock: SimulationClock
    let seed: UInt64
    /// The café's time zone (the simulation's café is open all day).
    let timeZone: String

    public init(baseURL: String, token: String, clock: SimulationClock, seed: UInt64, timeZone: String) {
        api = SimulationAPI(base: baseURL, token: token)
        self.clock = clock
        self.seed = seed
        self.timeZone = timeZone
    }

    /// One placed order as measured.
    struct Placed: Sendable {
        let id: String
        let placedAt: Date
        let readyAt: Date
        let naive: Date
        let tickets: Int
    }

    /// What the kitchen did: each ticket's finish, by order.
    final class Finishes: Sendable {
        private let state = Mutex<[String: [Date]]>([:])

        func record(orderID: String, at instant: Date) { state.withLock { $0[orderID, default: []].append(instant) } }

        func finishes(of orderID: String) -> [Date] { state.withLock { $0[orderID] ?? [] } }
    }

    /// Runs `scenario` in a café of its own (`sim-NAME-SEED`), from now on the clock.
    public func run(_ scenario: KitchenScenario) async throws -> ScenarioResult {
        let cafeID = "sim-\(scenario.name)-\(seed)"
        var document = scenario.cafeDocument(id: cafeID, timeZone: timeZone)
        var menu: [String: JSONValue] = [:]
        for key in CafeDocument.menuFields { menu[key] = document.removeValue(forKey: key) }
        _ = try api.expect(
            try await api.send(.PUT, "/v1/cafes/\(cafeID)", json: .object(document)), [200, 201], "PUT café")
        _ = try api.expect(try await api.send(.PUT, "/v1/cafes/\(cafeID)/menu", json: .object(menu)), [200], "PUT menu")

        let plan = ArrivalPlan(scenario, seed: seed)
        let prep = Dictionary(uniqueKeysWithValues: scenario.dishes.map { ($0.id, $0.prepSeconds) })
        let stations = Set(scenario.dishes.map(\.station))
        let queues = Dictionary(uniqueKeysWithValues: stations.map { ($0, StationQueue()) })
        let finishes = Finishes()
        let start = clock.now()
        let cursor =
            try api.expect(try await api.send(.GET, "/v1/cafes/\(cafeID)/tickets"), [200], "the feed")["cursor"]?
            .stringValue ?? "0"

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await follow(cafeID: cafeID, after: cursor, queues: queues) }
            for (station, queue) in queues {
                for _ in 0..<(scenario.cooks[station] ?? 1) {
                    group.addTask { try await cook(queue, scenario: scenario, finishes: finishes) }
                }
            }
            var placed: [Placed] = []
            var refused: [String: Int] = [:]
            for (index, arrival) in plan.arrivals.enumerated() {
                try await clock.sleep(until: start + arrival.second)
                let body: JSONValue = .object([
                    "cafeId": .string(cafeID), "pickup": "asap", "customer": ["name": .string("guest \(index + 1)")],
                    "lines": .array(
                        arrival.dishes.map { ["itemId": .string($0.id), "quantity": .int(Int64($0.quantity))] }),
                ])
                let placedAt = clock.now()
                let answer = try await api.send(
                    .POST, "/v1/orders", json: body,
                    headers: [("Idempotency-Key", "\(cafeID)-\(index)")])
                guard answer.status == 201, let order = answer.json, let id = order["id"]?.stringValue,
                    let readyAt = order["readyAt"]?.dateValue
                else {
                    refused[answer.errorCode ?? "\(answer.status)", default: 0] += 1
                    continue
                }
                let longest = arrival.dishes.map { prep[$0.id] ?? 0 }.max() ?? 0
                placed.append(
                    Placed(
                        id: id, placedAt: placedAt, readyAt: readyAt, naive: placedAt + Double(longest),
                        tickets: order["tickets"]?.arrayValue?.count ?? 0))
            }
            // Every order placed is made, however long the queue.
            while placed.contains(where: { finishes.finishes(of: $0.id).count < $0.tickets }) {
                try await Task.sleep(for: .milliseconds(50))
            }
            for queue in queues.values { await queue.close() }
            group.cancelAll()
            while let _ = try? await group.next() {}
            return ScenarioResult(scenario: scenario, placed: placed, refused: refused, finishes: finishes)
        }
    }

    /// Follows the café's feed and hands each ticket that fired to its station's cooks, once.
    private func follow(cafeID: String, after cursor: String, queues: [String: StationQueue]) async throws {
        var cursor = cursor
        var offered: Set<String> = []
        while !Task.isCancelled {
            let answer = try await api.send(.GET, "/v1/cafes/\(cafeID)/tickets?after=\(cursor)&wait=20")
            guard answer.status == 200, let page = answer.json else { continue }
            for ticket in page["tickets"]?.arrayValue ?? [] {
                guard ticket["status"]?.stringValue == "new", let id = ticket["id"]?.stringValue,
                    let station = ticket["station"]?.stringValue, let queue = queues[station],
                    offered.insert(id).inserted
                else { continue }
                await queue.offer(
                    StationQueue.Ticket(
                        id: id, orderID: ticket["orderId"]?.stringValue ?? "",
                        orderNumber: ticket["orderNumber"]?.intValue ?? 0,
                        station: station,
                        prepSeconds: ticket["prepSeconds"]?.intValue ?? KitchenTiming.assumedPrepSeconds))
            }
            cursor = page["cursor"]?.stringValue ?? cursor
        }
    }

    /// One cook: takes the station's next ticket, prepares it for its prep time ± the spread
    /// (drawn from the order's number and the station), marks it ready.
    private func cook(_ queue: StationQueue, scenario: KitchenScenario, finishes: Finishes) async throws {
        while let ticket = await queue.take() {
            let started = clock.now()
            _ = try api.expect(
                try await api.send(.POST, "/v1/tickets/\(ticket.id)/status", json: ["status": "preparing"]),
                [200], "preparing")
            var random = SeededGenerator.derived(
                seed: seed,
                [
                    SeededGenerator.stableHash(scenario.name),
                    UInt64(ticket.orderNumber),
                    SeededGenerator.stableHash(ticket.station),
                ])
            let factor = 1 + scenario.spread * (2 * random.unit() - 1)
            try await clock.sleep(until: started + Double(ticket.prepSeconds) * factor)
            let finished = clock.now()
            _ = try api.expect(
                try await api.send(.POST, "/v1/tickets/\(ticket.id)/status", json: ["status": "ready"]),
                [200], "ready")
            finishes.record(orderID: ticket.orderID, at: finished)
        }
    }
}
