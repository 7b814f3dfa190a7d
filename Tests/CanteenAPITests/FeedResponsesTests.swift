import CanteenTestSupport
import Foundation
import HTTPTypes
import Testing

@testable import CanteenAPI

@Suite("Shared feed answers")
struct FeedResponsesTests {
    @Test("fifty displays asking the same question at once share one query; a newer latest change asks again")
    func shared() async throws {
        let responses = FeedResponses()
        let renders = Tally()
        let key = FeedResponses.Key(
            question: .init(cafeID: "c", after: 7, station: nil, variant: "en-en_US"), latest: 9)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    _ = try? await responses.page(for: key) {
                        renders.add("render")
                        try await Task.sleep(for: .milliseconds(20))
                        return FeedResponses.Rendered(body: Data("{}".utf8), cursor: 9, isEmpty: false, headers: [:])
                    }
                }
            }
        }
        #expect(renders.snapshot == ["render": 1])
        let newer = FeedResponses.Key(
            question: .init(cafeID: "c", after: 7, station: nil, variant: "en-en_US"), latest: 10)
        _ = try await responses.page(for: newer) {
            renders.add("render")
            return FeedResponses.Rendered(body: Data(), cursor: 10, isEmpty: true, headers: [:])
        }
        #expect(renders.snapshot == ["render": 2])
    }
}
