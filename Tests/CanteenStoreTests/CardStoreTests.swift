import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Crypto
import Foundation
import GRDB
import Testing

@Suite("Badge cards as keyed hashes, on SQLite and PostgreSQL")
struct CardStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))
    static var key: SymmetricKey { SymmetricKey(data: Data(repeating: 7, count: 32)) }

    @Test(
        "a registered card identifies its user; the identifier is not stored in clear",
        arguments: StoreBackend.available)
    func registerAndIdentify(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.cardStore(key: Self.key)
            let identifier = try CardIdentifier("04:a2:5c:1a:2b:3c:80")
            _ = try await store.register(
                CardRegistration(userID: "ana", displayName: "Ana", technology: .type2), identifier: identifier)
            let found = try await store.identify(technology: .type2, identifier: try CardIdentifier("04A25C1A2B3C80"))
            #expect(found == CardRegistration(userID: "ana", displayName: "Ana", technology: .type2))
            #expect(
                try await server.integer(
                    """
                    SELECT COUNT(*) FROM card WHERE upper(identifierHash) LIKE '%04A25C1A2B3C80%' OR userId <> 'ana'
                    """) == 0)
            #expect(try await server.integer("SELECT length(identifierHash) FROM card") == 64)
        }
    }

    @Test("the same key gives the same hash on both engines, so copied cards keep working")
    func sameHashOnBothEngines() async throws {
        let identifier = try CardIdentifier("04A25C1A2B3C80")
        var hashes: [Int64] = []  // rows holding exactly the expected hash, per engine
        for backend in StoreBackend.available {
            try await backend.withStores(clock: clock) { server in
                _ = try await server.cardStore(key: Self.key).register(
                    CardRegistration(userID: "ana", displayName: nil, technology: .type2), identifier: identifier)
                hashes.append(
                    try await server.integer("SELECT COUNT(*) FROM card WHERE identifierHash = '\(Self.expectedHash)'")
                        ?? -1)
            }
        }
        #expect(hashes.allSatisfy { $0 == 1 })
    }

    /// HMAC-SHA256(key 0x07 × 32, "type2:04A25C1A2B3C80") as hex.
    static var expectedHash: String {
        HMAC<SHA256>.authenticationCode(for: Data("type2:04A25C1A2B3C80".utf8), using: key).map {
            String(format: "%02x", $0)
        }
        .joined()
    }

    @Test(
        "the same identifier under another technology or another server key is not registered",
        arguments: StoreBackend.available)
    func keyed(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let identifier = try CardIdentifier("01010601CA0B4E21")
            _ = try await server.cardStore(key: Self.key).register(
                CardRegistration(userID: "ana", displayName: nil, technology: .felica), identifier: identifier)
            await #expect(throws: CanteenError.cardNotRegistered) {
                try await server.cardStore(key: Self.key).identify(technology: .type2, identifier: identifier)
            }
            await #expect(throws: CanteenError.cardNotRegistered) {
                try await server.cardStore(key: SymmetricKey(data: Data(repeating: 8, count: 32)))
                    .identify(technology: .felica, identifier: identifier)
            }
        }
    }

    @Test(
        "a card of one user cannot be registered to another; bad identifiers are refused with their field",
        arguments: StoreBackend.available)
    func conflicts(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.cardStore(key: Self.key)
            let identifier = try CardIdentifier("E004010812345678")
            _ = try await store.register(
                CardRegistration(userID: "ana", displayName: "Ana", technology: .iso15693), identifier: identifier)
            await #expect(throws: CanteenError.cardAlreadyRegistered) {
                try await store.register(
                    CardRegistration(userID: "bo", displayName: "Bo", technology: .iso15693), identifier: identifier)
            }
            #expect(try await store.identify(technology: .iso15693, identifier: identifier).displayName == "Ana")
            for bad in ["", "04A2", "04A25C1A2B3C8", "ZZA25C1A2B3C80", String(repeating: "0", count: 22)] {
                let error = #expect(throws: CanteenError.self) { try CardIdentifier(bad) }
                #expect(error?.code == .invalidCardIdentifier)
                #expect(error?.field == "identifier")
            }
        }
    }

    @Test("a signed coupon code verifies; an edited id or signature, or another key, is refused")
    func coupons() throws {
        let signer = CouponSigner(key: Self.key)
        let code = try signer.code(couponID: "K7Q2")
        #expect(code.hasPrefix("K7Q2."))
        #expect(try signer.couponID(code: code) == "K7Q2")
        let edited = "K7Q3." + code.dropFirst(5)
        for forged in [edited, code + "A", String(code.dropLast()), "K7Q2", "K7Q2.", ".x"] {
            let error = #expect(throws: CanteenError.self) { try signer.couponID(code: forged) }
            #expect(error?.code == .invalidCouponCode)
        }
        #expect(throws: CanteenError.self) {
            try CouponSigner(key: SymmetricKey(data: Data(repeating: 9, count: 32))).couponID(code: code)
        }
        #expect(throws: CanteenError.self) { try signer.code(couponID: "has space") }
    }
}
