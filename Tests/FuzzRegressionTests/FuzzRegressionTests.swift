import Foundation
import FuzzTargets
import Testing

/// Every input a fuzzer ever broke a parser with (`Findings/<target>/`), and every seed of the
/// corpus (`Benchmarks/FuzzTargets/Seeds/<target>/`), runs through its target again: a crash
/// or a broken invariant (a trap) fails the run.
@Suite("fuzz findings and seeds replay without a crash")
struct FuzzRegressionTests {
    static let findings = Bundle.module.resourceURL!.appendingPathComponent("Findings")
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/FuzzTargets/Seeds")

    static func inputs(_ folder: URL, _ target: FuzzTarget) -> [URL] {
        let directory = folder.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("each target's seeds and findings run through it", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        let seeds = Self.inputs(Self.seeds, target)
        #expect(!seeds.isEmpty, "no seed for \(target.rawValue) in \(Self.seeds.path)")
        for url in seeds + Self.inputs(Self.findings, target) {
            let data = try Data(contentsOf: url)
            data.withUnsafeBytes { target.run($0) }
        }
    }
}
