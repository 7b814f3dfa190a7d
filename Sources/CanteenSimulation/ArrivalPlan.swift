import Foundation

/// When orders arrive in a scenario and what each asks for: a Poisson process of the scenario's
/// rate (drawn by thinning), each order one to three dishes by their weights. The same seed
/// gives the same plan.
public struct ArrivalPlan: Sendable {
    /// One order: seconds after the start, and quantities per dish id.
    public struct Arrival: Sendable, Equatable {
        public let second: Double
        public let dishes: [(id: String, quantity: Int)]

        public static func == (lhs: Arrival, rhs: Arrival) -> Bool {
            lhs.second == rhs.second && lhs.dishes.map(\.id) == rhs.dishes.map(\.id)
                && lhs.dishes.map(\.quantity) == rhs.dishes.map(\.quantity)
        }
    }

    public let arrivals: [Arrival]

    public init(_ scenario: KitchenScenario, seed: UInt64) {
        var random = SeededGenerator.derived(seed: seed, [SeededGenerator.stableHash(scenario.name)])
        let peak = max(scenario.peakRate, scenario.baseRate)
        let total = scenario.dishes.reduce(0) { $0 + $1.weight }
        var arrivals: [Arrival] = []
        var minute = 0.0
        while true {
            minute += -log(1 - random.unit()) / peak
            guard minute < scenario.minutes else { break }
            guard random.unit() < scenario.rate(at: minute) / peak else { continue }
            let draw = random.unit()
            let count = draw < 0.4 ? 1 : draw < 0.8 ? 2 : 3
            var dishes: [(id: String, quantity: Int)] = []
            for _ in 0..<count {
                var pick = random.unit() * total
                var chosen = scenario.dishes[scenario.dishes.count - 1]
                for dish in scenario.dishes {
                    if pick < dish.weight { chosen = dish; break }
                    pick -= dish.weight
                }
                if let index = dishes.firstIndex(where: { $0.id == chosen.id }) {
                    dishes[index].quantity += 1
                } else {
                    dishes.append((chosen.id, 1))
                }
            }
            arrivals.append(Arrival(second: minute * 60, dishes: dishes))
        }
        self.arrivals = arrivals
    }
}
