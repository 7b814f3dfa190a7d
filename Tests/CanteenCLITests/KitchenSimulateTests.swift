import CanteenSimulation
import CanteenTestSupport
import Foundation
import Testing

@Suite("canteen kitchen simulate")
struct KitchenSimulateTests {
    @Test("the same seed gives the same arrivals and dishes; another seed others; the rush peaks")
    func arrivalsAreSeeded() {
        let first = ArrivalPlan(.rush, seed: 7).arrivals
        #expect(first == ArrivalPlan(.rush, seed: 7).arrivals)
        #expect(first != ArrivalPlan(.rush, seed: 8).arrivals)
        #expect(!first.isEmpty && first.allSatisfy { (1...3).contains($0.dishes.reduce(0) { $0 + $1.quantity }) })
        #expect(first.map(\.second) == first.map(\.second).sorted())
        #expect(first.last.map { $0.second < KitchenScenario.rush.minutes * 60 } == true)
        let rush = KitchenScenario.rush
        #expect(rush.rate(at: 0) == rush.baseRate)
        #expect(rush.rate(at: rush.minutes * 0.5) == rush.peakRate)
        #expect(abs(rush.rate(at: rush.minutes) - rush.baseRate) < 0.0001)
    }

    @Test("a short quiet service against a server of its own prints the table and writes the JSON")
    func shortRun() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let result = try CanteenProcess.run([
            "kitchen", "simulate", "--scenario", "quiet", "--minutes", "20", "--speed", "120", "--seed", "3",
            "--json", json.path, "--locales", Fixtures.repositoryRoot.appendingPathComponent("Locales").path,
        ])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("| scenario | orders |"))
        #expect(result.output.contains("| quiet |"))
        let parsed = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [[String: Any]]
        let quiet = try #require(parsed?.first)
        #expect(quiet["name"] as? String == "quiet")
        #expect((quiet["orders"] as? Int ?? 0) > 0)
        #expect((quiet["readyAt"] as? [String: Any])?["p90"] is Int)
        #expect((quiet["naive"] as? [String: Any])?["median"] is Int)
    }

    @Test("a scenario it does not know, or --url without a token, is refused with a message")
    func refusals() throws {
        let unknown = try CanteenProcess.run(["kitchen", "simulate", "--scenario", "brunch"])
        #expect(unknown.status == 64)
        #expect(unknown.errors.contains("quiet, rush"), "\(unknown.errors)")
        let noToken = try CanteenProcess.run(["kitchen", "simulate", "--url", "http://127.0.0.1:9"])
        #expect(noToken.status == 64)
        #expect(noToken.errors.contains("--token"), "\(noToken.errors)")
    }
}
