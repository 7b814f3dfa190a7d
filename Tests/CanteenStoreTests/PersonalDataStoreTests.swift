import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Testing

@Suite("A person's data: export and erasure, on SQLite and PostgreSQL")
struct PersonalDataStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// What names Ana anywhere: her user id, name, email, and the ids of her session and token.
    struct Ana {
        let sessionID: String
        let tokenID: String
        var needles: [String] { ["u-ana", "Ana Lovelace", "ana@example.com", sessionID, tokenID] }
    }

    /// The test café, and Ana and Bob with preferences, a card, a card code, a session, a user
    /// token and orders (Ana's placed by her session and by a kiosk).
    func populate(_ server: TestStores) async throws -> Ana {
        let stores = server.stores
        try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
        var ana = Ana(sessionID: "", tokenID: "")
        for (user, name) in [("u-ana", "Ana Lovelace"), ("u-bob", "Bob Bobson")] {
            _ = try await stores.preferences.update(userID: user, changes: ["theme": .set("dark")], condition: nil)
            _ = try await stores.cards.register(
                CardRegistration(userID: user, displayName: name, technology: .type2),
                identifier: try CardIdentifier(user == "u-ana" ? "04A25C1A2B3C80" : "04A25C1A2B3C81"))
            _ = try await stores.cards.createEnrolment(
                userID: user, displayName: name,
                expiresAt: clock.now.addingTimeInterval(600))
            let (session, _) = try await stores.sessions.createSession(
                SessionSpec(userID: user, role: .user, name: name, email: "\(user.dropFirst(2))@example.com"))
            let (token, _) = try await stores.tokens.createToken(TokenSpec(role: .user, userID: user, name: name))
            for (index, placer) in [session.id, "tok_kiosk"].enumerated() {
                let request = OrderRequest(
                    cafeID: "testcafe", lines: [OrderLineRequest(itemID: "salad", quantity: 1, options: [], note: nil)],
                    pickup: .asap, customer: Customer(name: name, userID: user))
                _ = try await stores.orders.placeOrder(
                    request,
                    key: IdempotencyKey(
                        tokenID: placer, key: "\(user)-\(index)", requestHash: Data("\(user)-\(index)".utf8),
                        answerLanguage: "en"))
            }
            if user == "u-ana" { ana = Ana(sessionID: session.id, tokenID: token.id) }
        }
        return ana
    }

    @Test(
        "the export holds the person's preferences, cards, card codes, sessions, tokens and orders, nobody else's",
        arguments: StoreBackend.available)
    func export(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let ana = try await populate(server)
            let data = try await server.stores.personalData.personalData(userID: "u-ana")
            #expect(data.preferences?.values == ["theme": "dark"])
            #expect(data.cards.map(\.displayName) == ["Ana Lovelace"])
            #expect(data.cards.first?.technology == "type2")
            #expect(data.enrolments.count == 1)
            #expect(data.sessions.map(\.id) == [ana.sessionID])
            #expect(data.sessions.first?.email == "ana@example.com")
            #expect(data.tokens.map(\.id) == [ana.tokenID])
            #expect(data.orderIDs.count == 2)
            for id in data.orderIDs {
                #expect(try await server.stores.orders.order(id: id)?.customer.userID == "u-ana")
            }
            #expect(
                try await server.stores.personalData.recentOrderIDs(userID: "u-ana", limit: 1) == [data.orderIDs[0]])
            let nobody = try await server.stores.personalData.personalData(userID: "u-nobody")
            #expect(
                nobody.preferences == nil && nobody.cards.isEmpty && nobody.orderIDs.isEmpty && nobody.sessions.isEmpty)
        }
    }

    @Test(
        "after erasure nothing in any table names the person; orders keep lines and totals; others keep everything",
        arguments: StoreBackend.available)
    func erase(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let ana = try await populate(server)
            let before = try await everyTable(server)
            for needle in ana.needles where needle != ana.tokenID {
                #expect(
                    try await rows(server, before, containing: needle).values.reduce(0, +) > 0,
                    "\(needle) was never stored")
            }
            let lines = try await server.count("orderLine")
            let total = try await server.integer("SELECT CAST(SUM(total) AS BIGINT) FROM customerOrder")

            // When Ana's data is erased
            let erased = try await server.stores.personalData.erase(userID: "u-ana")

            // Then it says what went, and no table holds anything that names her
            #expect(
                erased == Erasure(preferences: 1, cards: 1, enrolments: 1, sessions: 1, tokens: 1, ordersUnlinked: 2))
            for needle in ana.needles {
                let found = try await rows(server, before, containing: needle).filter { $0.value > 0 }
                #expect(found.isEmpty, "'\(needle)' is still in \(found)")
            }
            // The orders stay for the café's books, without anyone's name on them.
            #expect(try await server.count("customerOrder") == 4)
            #expect(try await server.count("orderLine") == lines)
            #expect(try await server.integer("SELECT CAST(SUM(total) AS BIGINT) FROM customerOrder") == total)
            #expect(
                try await server.integer(
                    "SELECT COUNT(*) FROM customerOrder WHERE userId IS NULL AND customerName = ''") == 2)
            // The kiosk that placed one of them is still its placer; her session is not.
            #expect(try await server.integer("SELECT COUNT(*) FROM customerOrder WHERE tokenId = 'tok_kiosk'") == 2)
            // Bob's data is untouched.
            let bob = try await server.stores.personalData.personalData(userID: "u-bob")
            #expect(bob.preferences != nil && bob.cards.count == 1 && bob.sessions.count == 1 && bob.tokens.count == 1)
            #expect(bob.orderIDs.count == 2)
            #expect(try await rows(server, before, containing: "Bob Bobson").values.reduce(0, +) >= 4)
            // Erasing again finds nothing.
            #expect(
                try await server.stores.personalData.erase(userID: "u-ana")
                    == Erasure(preferences: 0, cards: 0, enrolments: 0, sessions: 0, tokens: 0, ordersUnlinked: 0))
        }
    }

    // MARK: - Reading every table

    /// Every table of the database (PostgreSQL: of its schema, checked against SQLite's list).
    func everyTable(_ server: TestStores) async throws -> [String] {
        if let database = server.sqlite {
            return try await database.writer.read { db in
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            }
        }
        let known = DatabaseCopy.tables + ["feedSequence", "serverKey", "canteenMigration"]
        let count = try await server.integer(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()")
        #expect(Int(count ?? 0) == known.count, "a PostgreSQL table is not in DatabaseCopy.tables: read it here too")
        return known
    }

    /// How many rows of each table hold `needle` in any column.
    func rows(_ server: TestStores, _ tables: [String], containing needle: String) async throws -> [String: Int] {
        let pattern = "'%" + needle.replacingOccurrences(of: "'", with: "''") + "%'"
        var found: [String: Int] = [:]
        for table in tables {
            let condition: String
            if let database = server.sqlite {
                let columns = try await database.writer.read { db in try db.columns(in: table).map(\.name) }
                condition = columns.map { "CAST(\"\($0)\" AS TEXT) LIKE \(pattern)" }.joined(separator: " OR ")
            } else {
                condition = "row_to_json(t)::text LIKE \(pattern)"
            }
            found[table] = Int(try await server.integer("SELECT COUNT(*) FROM \(table) t WHERE \(condition)") ?? 0)
        }
        return found
    }
}
