import CanteenApp
import CanteenCore
import CanteenPostgres
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Testing

/// Canteen used to keep the first 200 bytes of a receiver's error answer in the attempt's error
/// (`HTTP 500: <body>`), and show it in `GET /v1/webhooks/{id}/deliveries`: a way to read an
/// internal service's answers (issue 27, item 1). A migration (never an edited one) scrubs them.
@Suite("Webhook attempts keep no receiver's answer, on SQLite and PostgreSQL")
struct WebhookAttemptScrubTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// The migration that scrubs them, as each engine names it.
    static let sqliteMigration = "v13: webhook attempts keep no receiver answers"
    static let postgresMigration = 4

    @Test(
        "the migration turns a stored 'HTTP 500: <body>' into 'HTTP 500' and leaves our own errors alone",
        arguments: StoreBackend.available)
    func scrubsStoredBodies(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock, onDisk: true) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            let (endpoint, _) = try await stores.webhooks.createEndpoint(
                WebhookRegistration(url: "http://127.0.0.1:9/hook", cafeID: nil, events: ["order.placed"]))
            guard case .placed = try await stores.orders.placeOrder(OrderStoreTests.request(), key: nil) else {
                throw CanteenError(.internal, code: .internalError, message: "not placed")
            }
            // Attempts as an older Canteen recorded them.
            let errors: [(Int?, String)] = [
                (500, "HTTP 500: SECRET-INTERNAL-BODY {\"AccessKeyId\": \"ASIA...\"}"), (503, "HTTP 503"),
                (404, "HTTP 404: <html>not here</html>"), (nil, "timed out after 10.0 seconds"),
                (nil, "the receiver closed the connection"),
            ]
            for (status, error) in errors {
                let job = try #require(
                    try await stores.webhooks.deliveryRound(
                        recording: [], claim: 1, now: clock.now,
                        lease: 30
                    ).jobs.first)
                _ = try await stores.webhooks.deliveryRound(
                    recording: [
                        WebhookAttemptResult(
                            endpointID: endpoint.id, eventSequence: job.event.sequence, leasedUntil: job.leasedUntil,
                            attempt: WebhookAttempt(
                                attemptedAt: clock.now, statusCode: status, latencyMilliseconds: 3, error: error),
                            next: .retry(at: clock.now))
                    ], claim: 0, now: clock.now, lease: 30)
                clock.advance(by: 1)
            }
            #expect(try await server.integer("SELECT COUNT(*) FROM webhookAttempt WHERE error LIKE '%SECRET%'") == 1)

            // The database as an older Canteen left it: the migration not yet run. Opening it runs it.
            switch stores.engine {
            case .sqlite(let database):
                try await server.execute("DELETE FROM grdb_migrations WHERE identifier = '\(Self.sqliteMigration)'")
                let directory = URL(fileURLWithPath: database.writer.path).deletingLastPathComponent()
                let reopened = try CanteenStores.open(dataDirectory: directory, clock: clock.closure)
                try reopened.sqliteDatabase?.close()
            case .postgres(let database):
                try await server.execute("DELETE FROM canteenMigration WHERE version = \(Self.postgresMigration)")
                try await CanteenStores.open(
                    postgres: database.url, cardKey: nil, maximumConnections: 2,
                    logger: StoreBackend.quietLogger, clock: clock.closure
                )
                .withDatabase { _ = try await $0.cafes.cafes() }
            }

            let delivery = try #require(try await stores.webhooks.deliveries(endpointID: endpoint.id, limit: 1).first)
            #expect(
                delivery.attempts.map(\.error) == [
                    "HTTP 500", "HTTP 503", "HTTP 404", "timed out after 10.0 seconds",
                    "the receiver closed the connection",
                ])
            #expect(delivery.attempts.map(\.statusCode) == [500, 503, 404, nil, nil])
            #expect(try await server.integer("SELECT COUNT(*) FROM webhookAttempt WHERE error LIKE '%SECRET%'") == 0)
        }
    }
}
