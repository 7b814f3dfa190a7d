import CanteenTestSupport
import Foundation
import Synchronization
import Testing

@testable import CanteenPersistence

@Suite("Group commit")
struct GroupCommitTests {
    struct Odd: Error {}

    @Test("500 concurrent callers each get their own job's result, failures included, in fewer batches than jobs")
    func ownResults() async throws {
        let batches = Tally()
        let commit = GroupCommit<Int, Int>(maxBatch: 64) { jobs in
            batches.add("batch")
            try? await Task.sleep(for: .milliseconds(2))  // a transaction takes time; others queue
            return jobs.map { $0 % 7 == 0 ? .failure(Odd()) : .success($0 * 10) }
        }
        let outcomes = Tally()
        await withTaskGroup(of: Void.self) { group in
            for job in 0..<500 {
                group.addTask {
                    do {
                        let result = try await commit.submit(job)
                        outcomes.add(result == job * 10 ? "right" : "wrong")
                    } catch {
                        outcomes.add(job % 7 == 0 ? "failed as it should" : "failed wrongly")
                    }
                }
            }
        }
        #expect(outcomes.snapshot == ["right": 428, "failed as it should": 72])
        #expect((batches.snapshot["batch"] ?? 0) < 500)
    }

    @Test("a batch that returns too few results fails the rest instead of hanging")
    func missingResults() async throws {
        let commit = GroupCommit<Int, Int>(maxBatch: 64) { _ in [] }
        await #expect(throws: GroupCommitError.self) { try await commit.submit(1) }
    }
}
