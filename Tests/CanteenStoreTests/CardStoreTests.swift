import CanteenCore
import CanteenStore
import Crypto
import Foundation
import GRDB
import Testing

@Suite("Badge cards as keyed hashes")
struct CardStoreTests {
    static var key: SymmetricKey { SymmetricKey(data: Data(repeating: 7, count: 32)) }

    @Test("a registered card identifies its user; the identifier is not stored in clear")
    func registerAndIdentify() async throws {
        let database = try AppDatabase.inMemory()
        let store = CardStore(database: database, key: Self.key)
        let identifier = try CardIdentifier("04:a2:5c:1a:2b:3c:80")
        _ = try await store.register(
            CardRegistration(userID: "ana", displayName: "Ana", technology: .type2), identifier: identifier)
        let found = try await store.identify(technology: .type2, identifier: try CardIdentifier("04A25C1A2B3C80"))
        #expect(found == CardRegistration(userID: "ana", displayName: "Ana", technology: .type2))
        let dump = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM card").map { $0.description }.joined()
        }
        #expect(!dump.uppercased().contains("04A25C1A2B3C80"))
        #expect(dump.contains("ana"))
    }

    @Test("the same identifier under another technology or another server key is not registered")
    func keyed() async throws {
        let database = try AppDatabase.inMemory()
        let identifier = try CardIdentifier("01010601CA0B4E21")
        _ = try await CardStore(database: database, key: Self.key).register(
            CardRegistration(userID: "ana", displayName: nil, technology: .felica), identifier: identifier)
        await #expect(throws: CanteenError.cardNotRegistered) {
            try await CardStore(database: database, key: Self.key).identify(technology: .type2, identifier: identifier)
        }
        await #expect(throws: CanteenError.cardNotRegistered) {
            try await CardStore(database: database, key: SymmetricKey(data: Data(repeating: 8, count: 32)))
                .identify(technology: .felica, identifier: identifier)
        }
    }

    @Test("a card of one user cannot be registered to another; bad identifiers are refused with their field")
    func conflicts() async throws {
        let store = CardStore(database: try AppDatabase.inMemory(), key: Self.key)
        let identifier = try CardIdentifier("E004010812345678")
        _ = try await store.register(
            CardRegistration(userID: "ana", displayName: nil, technology: .iso15693), identifier: identifier)
        await #expect(throws: CanteenError.cardAlreadyRegistered) {
            try await store.register(
                CardRegistration(userID: "bo", displayName: nil, technology: .iso15693), identifier: identifier)
        }
        for bad in ["", "04A2", "04A25C1A2B3C8", "ZZA25C1A2B3C80", String(repeating: "0", count: 22)] {
            let error = #expect(throws: CanteenError.self) { try CardIdentifier(bad) }
            #expect(error?.code == .invalidCardIdentifier)
            #expect(error?.field == "identifier")
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
