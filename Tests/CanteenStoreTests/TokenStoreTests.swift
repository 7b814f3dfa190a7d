import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import Testing

@Suite("Token store, on SQLite and PostgreSQL")
struct TokenStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    @Test(
        "a created token authenticates with its role and café, and stops after revocation",
        arguments: StoreBackend.available)
    func lifecycle(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            let store = server.stores.tokens
            let (token, secret) = try await store.createToken(role: .kitchen, cafeID: "testcafe", name: "line 1")
            let found = try #require(try await store.authenticate(secret: secret))
            #expect(found.id == token.id)
            #expect(found.role == .kitchen)
            #expect(found.cafeID == "testcafe")
            #expect(found.createdAt == clock.now)
            #expect(try await store.authenticate(secret: secret + "x") == nil)
            try await store.revokeToken(id: token.id)
            #expect(try await store.authenticate(secret: secret) == nil)
            #expect(try await store.tokens().first?.revokedAt == clock.now)
        }
    }

    @Test(
        "a token authenticated (and so cached) stops working as soon as this store revokes it",
        arguments: StoreBackend.available)
    func revokeAfterCaching(backend: StoreBackend) async throws {
        try await backend.withServers(1, clock: clock, onDisk: true) { servers in
            try await withChangeWatchers(servers) {
                let store = servers[0].stores.tokens
                let (token, secret) = try await store.createToken(role: .ops, cafeID: nil, name: nil)
                #expect(try await store.authenticate(secret: secret)?.id == token.id)
                #expect(try await store.authenticate(secret: secret)?.id == token.id)
                try await store.revokeToken(id: token.id)
                #expect(try await store.authenticate(secret: secret) == nil)
            }
        }
    }

    @Test(
        "a token revoked on one server (or by the command line) stops working on the others, their caches following",
        arguments: StoreBackend.available)
    func revokeOnAnotherServer(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            try await withChangeWatchers(servers) {
                let (first, second) = (servers[0].stores.tokens, servers[1].stores.tokens)
                let (token, secret) = try await first.createToken(role: .kiosk, cafeID: nil, name: nil)
                #expect(try await second.authenticate(secret: secret)?.id == token.id)
                #expect(try await second.authenticate(secret: secret)?.id == token.id)
                try await first.revokeToken(id: token.id)
                try await eventually("the second server still accepts the revoked token") {
                    try await second.authenticate(secret: secret) == nil
                }
            }
        }
    }

    @Test("secrets are stored only as hashes", arguments: StoreBackend.available)
    func hashed(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let (_, secret) = try await server.stores.tokens.createToken(role: .ops, cafeID: nil, name: nil)
            let escaped = secret.replacingOccurrences(of: "'", with: "''")
            let clear = try await server.integer(
                """
                SELECT COUNT(*) FROM accessToken WHERE id LIKE '%\(escaped)%' OR name LIKE '%\(escaped)%'
                    OR role LIKE '%\(escaped)%'
                """)
            #expect(clear == 0)
            #expect(try await server.integer("SELECT COUNT(*) FROM accessToken") == 1)
            let hashLength = backend == .sqlite ? "length(secretHash)" : "octet_length(secretHash)"
            #expect(try await server.integer("SELECT \(hashLength) FROM accessToken") == 32)
        }
    }

    @Test("a token cannot be bound to a café that does not exist", arguments: StoreBackend.available)
    func unknownCafe(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server async throws in
            await #expect(throws: CanteenError.notFound(.cafe, "nowhere", field: "cafeId")) {
                try await server.stores.tokens.createToken(role: .kiosk, cafeID: "nowhere", name: nil)
            }
            #expect(try await server.count("accessToken") == 0)
        }
    }

    @Test("revoking an unknown token is token_not_found", arguments: StoreBackend.available)
    func revokeUnknown(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server async throws in
            await #expect(throws: CanteenError.notFound(.token, "tok_nope")) {
                try await server.stores.tokens.revokeToken(id: "tok_nope")
            }
        }
    }
}
