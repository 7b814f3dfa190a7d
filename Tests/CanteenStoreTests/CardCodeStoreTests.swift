import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

/// What both card stores hold to, whatever the route in front of them checked: enrolment codes of
/// 12 characters in groups of four, typed in any form; user ids by `UserID`'s rule.
@Suite("Card stores: enrolment codes and user ids, on SQLite and PostgreSQL")
struct CardCodeStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    @Test(
        "a code is 12 characters of the look-alike-free alphabet in groups of four, and works typed any way",
        arguments: StoreBackend.available)
    func codeShape(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { stores in
            var codes: Set<String> = []
            let typings: [@Sendable (String) -> String] = [
                { $0 }, { $0.lowercased() }, { $0.replacingOccurrences(of: "-", with: "") },
                { $0.replacingOccurrences(of: "-", with: " ") },
            ]
            for (index, typed) in typings.enumerated() {
                let code = try await stores.stores.cards.createEnrolment(
                    userID: "ana", displayName: nil,
                    expiresAt: clock.now.addingTimeInterval(900))
                #expect(code.split(separator: "-").map(\.count) == [4, 4, 4], "\(code)")
                #expect(EnrolmentCode.normalized(code).allSatisfy(EnrolmentCode.alphabet.contains))
                codes.insert(code)
                let card = try CardIdentifier(String(format: "04A25C1A2B3C%02X", index))
                #expect(
                    try await stores.stores.cards.enrol(code: typed(code), technology: .type2, identifier: card).userID
                        == "ana")
            }
            #expect(codes.count == 4)
        }
    }

    @Test(
        "a malformed user id is refused by registration and enrolment alike, and nothing is stored",
        arguments: StoreBackend.available)
    func userIDs(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { stores in
            for userID in ["a b", "../etc", "<img src=x>", "a\u{0}b", "", String(repeating: "u", count: 129)] {
                let card = try CardIdentifier("04A25C1A2B3C80")
                let registered = await #expect(throws: CanteenError.self) {
                    _ = try await stores.stores.cards.register(
                        CardRegistration(userID: userID, displayName: nil, technology: .type2),
                        identifier: card)
                }
                #expect(registered?.field == "userId")
                let enrolment = await #expect(throws: CanteenError.self) {
                    _ = try await stores.stores.cards.createEnrolment(
                        userID: userID, displayName: nil,
                        expiresAt: clock.now.addingTimeInterval(900))
                }
                #expect(enrolment?.field == "userId")
                let unknown = await #expect(throws: CanteenError.self) {
                    _ = try await stores.stores.cards.identify(technology: .type2, identifier: card)
                }
                #expect(unknown?.code == .cardNotRegistered)
            }
        }
    }
}
