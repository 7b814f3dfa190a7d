import ArgumentParser
import CanteenApp
import CanteenCore
import CanteenSimulation
import Foundation
import Logging
import ServiceLifecycle

/// `canteen kitchen simulate`: replays services against a real server and measures its ready times.
struct KitchenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kitchen", abstract: "The kitchen's timing.", subcommands: [Simulate.self])

    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a quiet hour and a lunch rush; print how far readyAt and the naive quote were off.",
            discussion: """
                Without --url a server of its own runs in this process on a temporary SQLite database, its clock \
                running --speed times as fast as real time; with --url the server given (and its ops --token) runs \
                in real time, so a scenario takes as long as it says.
                """)

        @Option(help: "A running server's address (http://HOST:PORT); default: start one here.") var url: String?
        @Option(help: "An ops token of that server (or CANTEEN_TOKEN).") var token: String?
        @Option(help: "The random seed (arrivals, dishes, prep durations).") var seed: UInt64 = 1
        @Option(help: "How much faster than real time the server started here runs.") var speed: Double = 30
        @Option(name: .customLong("scenario"), help: "quiet, rush (repeat for several; default both).")
        var scenarios: [String] = []
        @Option(help: "Also write the results as JSON to this file.") var json: String?
        @Option(help: "Minutes of orders per scenario, instead of its own length (60 quiet, 75 rush).")
        var minutes: Double?
        @Flag(help: "Print each order's quoted, naive and actual wait (seconds) on stderr.") var details = false
        @Option(help: "UI strings, one JSON file per language (for the server started here).") var locales = "Locales"

        func validate() throws {
            guard speed >= 1, speed <= 120 else { throw ValidationError("--speed is 1 to 120") }
            if let minutes, !(1...600).contains(minutes) { throw ValidationError("--minutes is 1 to 600") }
            for name in scenarios where !KitchenScenario.all.contains(where: { $0.name == name }) {
                throw ValidationError("--scenario is one of \(KitchenScenario.all.map(\.name).joined(separator: ", "))")
            }
            if url != nil && token == nil && ProcessInfo.processInfo.environment["CANTEEN_TOKEN"] == nil {
                throw ValidationError("--url needs an ops --token (or CANTEEN_TOKEN)")
            }
        }

        func run() async throws {
            let chosen =
                (scenarios.isEmpty
                ? KitchenScenario.all
                : KitchenScenario.all.filter { scenarios.contains($0.name) }).map { minutes.map($0.lasting) ?? $0 }
            let results: [ScenarioResult]
            if let url {
                let clock = SimulationClock(epoch: Date(), rate: 1)
                let token = token ?? ProcessInfo.processInfo.environment["CANTEEN_TOKEN"] ?? ""
                results = try await simulate(chosen, url: url, token: token, clock: clock, timeZone: Self.middayZone())
            } else {
                results = try await withOwnServer { url, token, clock in
                    try await simulate(chosen, url: url, token: token, clock: clock, timeZone: "UTC")
                }
            }
            if details {
                for result in results {
                    for order in result.details {
                        let line =
                            "\(result.name) +\(order.placed)s quoted \(order.quoted) naive \(order.naive) "
                            + "actual \(order.actual) (error \(order.quoted - order.actual))\n"
                        FileHandle.standardError.write(Data(line.utf8))
                    }
                }
            }
            print(ScenarioResult.table(results))
            if let json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(results).write(to: URL(fileURLWithPath: json))
            }
        }

        private func simulate(
            _ scenarios: [KitchenScenario], url: String, token: String, clock: SimulationClock,
            timeZone: String
        ) async throws -> [ScenarioResult] {
            var results: [ScenarioResult] = []
            for scenario in scenarios {
                FileHandle.standardError.write(
                    Data("simulating \(scenario.name): \(Int(scenario.minutes)) minutes\n".utf8))
                let simulation = KitchenSimulation(
                    baseURL: url, token: token, clock: clock, seed: seed, timeZone: timeZone)
                results.append(try await simulation.run(scenario))
            }
            return results
        }

        /// Runs `body` against a server started here on a temporary database, its clock
        /// accelerated (starting Tuesday 2026-11-24 11:00 UTC), with an ops token; then stops it.
        private func withOwnServer(
            _ body:
                @escaping @Sendable (String, String, SimulationClock) async throws
                -> [ScenarioResult]
        ) async throws -> [ScenarioResult] {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("canteen-simulate-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let clock = SimulationClock(epoch: Date(timeIntervalSince1970: 1_795_518_000), rate: speed)
            let port = try Self.freePort()
            let configuration = AppConfiguration(
                host: "127.0.0.1", port: port, dataDirectory: directory, menusDirectory: nil,
                localesDirectory: URL(fileURLWithPath: locales), logLevel: .warning, clockRate: speed)
            let app = try await buildApplication(configuration, clock: { clock.now() })
            let token = try await CanteenStores.open(dataDirectory: directory).tokens
                .createToken(role: .ops, cafeID: nil, name: "kitchen simulate").secret
            var quiet = Logger(label: "canteen.simulate")
            quiet.logLevel = .critical
            let server = ServiceGroup(
                services: [app], gracefulShutdownSignals: [], cancellationSignals: [],
                logger: quiet)
            return try await withThrowingTaskGroup(of: [ScenarioResult]?.self) { group in
                group.addTask {
                    try await server.run()
                    return nil
                }
                let url = "http://127.0.0.1:\(port)"
                do {
                    try await Self.waitUntilServing(url)
                    let results = try await body(url, token, clock)
                    await server.triggerGracefulShutdown()
                    try await group.waitForAll()
                    return results
                } catch {
                    await server.triggerGracefulShutdown()
                    try? await group.waitForAll()
                    throw error
                }
            }
        }

        /// Waits (up to a minute) until `GET /healthz` answers.
        static func waitUntilServing(_ url: String) async throws {
            for _ in 0..<600 {
                if (try? await SimulationProbe.healthy(url)) == true { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw SimulationError("the server at \(url) did not start")
        }

        /// A free loopback port (the kernel's choice for a socket bound to port 0).
        static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw SimulationError("no socket for a free port") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw SimulationError("no free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        /// A zone without daylight saving time where it is about noon now: a service run in real
        /// time stays within the café's day.
        static func middayZone() -> String {
            let zones = [
                -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn", -7: "America/Phoenix",
                -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
                -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde",
                0: "Africa/Abidjan", 1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh",
                4: "Asia/Dubai", 5: "Asia/Karachi", 6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai",
                9: "Asia/Tokyo", 10: "Australia/Brisbane", 11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa",
            ]
            let hour =
                Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour
                ?? 0
            let offset = (12 - hour + 36) % 24 - 12
            return zones[max(-10, min(12, offset))] ?? "UTC"
        }
    }
}
