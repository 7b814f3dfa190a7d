import Foundation
import Synchronization
import Testing

@testable import CanteenAPI

@Suite("Waking parked displays")
struct FeedSignalTests {
    @Test("a waiter with a short deadline that parks after a long one is answered at its own deadline, not the other's")
    func shortAfterLong() async throws {
        let signal = FeedSignal<Never, Never>(deadlineSlack: .milliseconds(100))
        let long = Task { await signal.wait(cafeID: "a", after: 0, timeout: .seconds(60)).changed }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        let short = await signal.wait(cafeID: "b", after: 0, timeout: .milliseconds(300)).changed
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
        let signal = FeedSignal<Never, Never>()
        let here = Task { await signal.wait(cafeID: "here", after: 3, timeout: .seconds(60)).changed }
        let there = Task { await signal.wait(cafeID: "there", after: 0, timeout: .seconds(60)).changed }
        while signal.waiterCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
        signal.publish(["here": 4])
        #expect(await here.value == true)
        #expect(signal.waiterCount == 1)
        signal.releaseAll()
        #expect(await there.value == false)
    }

    @Test(
        "waiters asking one question are woken with one preparation of it; other questions and plain waiters get their own"
    )
    func preparedOncePerQuestion() async throws {
        let signal = FeedSignal<String, String>()
        let prepared = PreparedQuestions()
        let preparation: @Sendable (String) -> FeedSignal<String, String>.Preparation = { question in
            .init(question: question) { latest in
                prepared.names.withLock { $0.append(question) }
                return "\(question)@\(latest)"
            }
        }
        let waits = ["bar", "bar", "cold", "bar", nil].map { question in
            Task {
                await signal.wait(cafeID: "c", after: 0, timeout: .seconds(60), preparing: question.map(preparation))
            }
        }
        let other = Task {
            await signal.wait(cafeID: "elsewhere", after: 0, timeout: .seconds(60), preparing: preparation("bar"))
        }
        while signal.waiterCount < 6 { try await Task.sleep(for: .milliseconds(10)) }
        signal.publish(["c": 7])
        var answers: [String] = []
        for wait in waits {
            guard case .changed(let latest, let page, let published) = await wait.value else {
                Issue.record("a waiter of the changed café was not woken by the change")
                continue
            }
            #expect(latest == 7)
            #expect(published != nil, "a woken waiter learns when the change was published")
            answers.append(page ?? "nothing prepared")
        }
        #expect(answers == ["bar@7", "bar@7", "cold@7", "bar@7", "nothing prepared"])
        #expect(prepared.names.withLock { $0.sorted() } == ["bar", "cold"], "each question prepared once")
        #expect(signal.waiterCount == 1, "the other café's waiter still waits")
        signal.releaseAll()
        #expect(await other.value.changed == false)
    }

    @Test("one question asked of two cafés changed at once is prepared for each café's own change")
    func sameQuestionTwoCafes() async throws {
        let signal = FeedSignal<String, String>()
        let preparation = FeedSignal<String, String>.Preparation(question: "bar") { latest in "bar@\(latest)" }
        let here = Task { await signal.wait(cafeID: "here", after: 0, timeout: .seconds(60), preparing: preparation) }
        let there = Task { await signal.wait(cafeID: "there", after: 0, timeout: .seconds(60), preparing: preparation) }
        while signal.waiterCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
        signal.publish(["here": 4, "there": 9])
        for (wait, latest) in [(here, Int64(4)), (there, 9)] {
            guard case .changed(let woken, let page, _) = await wait.value else {
                Issue.record("a waiter of a changed café was not woken")
                continue
            }
            #expect(woken == latest)
            #expect(page == "bar@\(latest)", "its own café's change was prepared")
        }
    }

    @Test("a waiter whose café already moved past its cursor returns at once and prepares nothing")
    func alreadyChanged() async {
        let signal = FeedSignal<String, String>()
        signal.publish(["c": 3])
        let wakeup = await signal.wait(
            cafeID: "c", after: 2, timeout: .seconds(60),
            preparing: .init(question: "q") { _ in "prepared" })
        guard case .changed(let latest, let page, let published) = wakeup else {
            Issue.record("expected a change, got \(wakeup)")
            return
        }
        #expect(latest == 3)
        #expect(page == nil)
        #expect(published == nil, "it was not woken, so it has no wake-up delay")
    }
}

/// The questions a test's preparations were asked, in the order they ran.
private final class PreparedQuestions: Sendable {
    let names = Mutex<[String]>([])
}
