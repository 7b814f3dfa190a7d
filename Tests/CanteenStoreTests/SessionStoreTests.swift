import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Session store, on SQLite and PostgreSQL")
struct SessionStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    @Test(
        "a session authenticates by its secret, stored only as a hash, until it is ended",
        arguments: StoreBackend.available)
    func lifecycle(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.sessions
            // Given a session
            let (session, secret) = try await store.createSession(
                SessionSpec(userID: "u-ana", role: .user, name: "Ana", email: "ana@example.com"))
            // Then its secret opens it, and nothing else does
            let found = try #require(try await store.authenticate(secret: secret))
            #expect(found.id == session.id && found.userID == "u-ana" && found.role == .user)
            #expect(found.name == "Ana" && found.email == "ana@example.com")
            #expect(try await store.authenticate(secret: secret + "x") == nil)
            // The secret is nowhere in the table
            let escaped = secret.replacingOccurrences(of: "'", with: "''")
            #expect(
                try await server.integer(
                    """
                    SELECT COUNT(*) FROM userSession WHERE id LIKE '%\(escaped)%' OR userId LIKE '%\(escaped)%'
                        OR name LIKE '%\(escaped)%'
                    """) == 0)
            let length = backend == .sqlite ? "length(secretHash)" : "octet_length(secretHash)"
            #expect(try await server.integer("SELECT \(length) FROM userSession") == 32)
            // When it is ended, it no longer opens
            #expect(try await store.endSession(secret: secret))
            #expect(try await store.authenticate(secret: secret) == nil)
            #expect(try await server.count("userSession") == 0)
            #expect(try await store.endSession(secret: secret) == false)
        }
    }

    @Test(
        "a session idle for more than 12 hours is over and deleted; use renews it (at most once a minute)",
        arguments: StoreBackend.available)
    func idle(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.sessions
            let (_, secret) = try await store.createSession(
                SessionSpec(userID: "u-ana", role: .user, name: nil, email: nil))
            clock.advance(by: 30)
            #expect(try await store.authenticate(secret: secret)?.lastSeenAt == clock.now.addingTimeInterval(-30))
            clock.advance(by: 11 * 3600)
            let renewed = try #require(try await store.authenticate(secret: secret))
            #expect(renewed.lastSeenAt == clock.now)
            clock.advance(by: 12 * 3600)
            #expect(try await store.authenticate(secret: secret) != nil)
            clock.advance(by: 12 * 3600 + 1)
            #expect(try await store.authenticate(secret: secret) == nil)
            #expect(try await server.count("userSession") == 0)
        }
    }

    @Test("a sign-in under way is taken once, and not after 10 minutes", arguments: StoreBackend.available)
    func loginAttempts(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.sessions
            let attempt = LoginAttempt(state: "s1", nonce: "n1", codeVerifier: "v1", next: "/app", createdAt: clock.now)
            let browser = try await store.beginLogin(attempt)
            #expect(try await store.takeLogin(browserSecret: browser + "x") == nil)
            #expect(try await store.takeLogin(browserSecret: browser) == attempt)
            #expect(try await store.takeLogin(browserSecret: browser) == nil)
            let late = try await store.beginLogin(
                LoginAttempt(
                    state: "s2", nonce: "n2", codeVerifier: "v2", next: "/app",
                    createdAt: clock.now))
            clock.advance(by: 601)
            #expect(try await store.takeLogin(browserSecret: late) == nil)
            #expect(try await server.count("loginAttempt") == 0)
        }
    }

    @Test(
        "a session made on one server is known to the others, and ended everywhere", arguments: StoreBackend.available)
    func acrossServers(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            let (_, secret) = try await servers[0].stores.sessions.createSession(
                SessionSpec(userID: "u-ana", role: .ops, name: nil, email: nil))
            #expect(try await servers[1].stores.sessions.authenticate(secret: secret)?.role == .ops)
            try await servers[1].stores.sessions.endSession(secret: secret)
            #expect(try await servers[0].stores.sessions.authenticate(secret: secret) == nil)
        }
    }
}
