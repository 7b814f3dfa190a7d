@testable import CanteenAPI
import Foundation
import Testing

@Suite("Waking parked displays")
struct FeedSignalTests {
    @Test("a waiter with a short deadline that parks after a long one is answered at its own deadline, not the other's")
    func shortAfterLong() async throws {
        let signal = FeedSignal(deadlineSlack: .milliseconds(100))
        let long = Task { await signal.wait(cafeID: "a", after: 0, timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        let short = await signal.wait(cafeID: "b", after: 0, timeout: .milliseconds(300))
        #expect(short == false, "nothing changed: the short wait ends at its deadline")
        // A liveness bound for a busy machine: the long waiter's 60 s are far away.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(signal.waiterCount == 1)
        signal.publish(["a": 1])
        #expect(await long.value == true)
        #expect(signal.waiterCount == 0)
    }

    @Test("a change wakes only its café's waiters; waiters of other cafés keep waiting")
    func perCafe() async throws {
        let signal = FeedSignal()
        let here = Task { await signal.wait(cafeID: "here", after: 3, timeout: .seconds(60)) }
        let there = Task { await signal.wait(cafeID: "there", after: 0, timeout: .seconds(60)) }
        while signal.waiterCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
        signal.publish(["here": 4])
        #expect(await here.value == true)
        #expect(signal.waiterCount == 1)
        signal.releaseAll()
        #expect(await there.value == false)
    }
}
