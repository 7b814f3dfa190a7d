import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenFormat
import CanteenStore
import Foundation
import GRDB

/// An in-memory Canteen with the test café (and optionally the sample cafés) and one token per role.
public struct TestEnvironment: Sendable {
    public let stores: CanteenStores
    public let clock: TestClock
    /// The routes' services (one kitchen feed for the environment's life).
    public let services: APIServices
    /// Bearer secrets: `ops`, unbound `kiosk` and `kitchen`, and `boundKiosk` for the test café only.
    public let ops: String
    public let kiosk: String
    public let kitchen: String
    public let boundKiosk: String

    /// - Parameters:
    ///   - dataDirectory: a folder for a real SQLite file (WAL, pool); nil keeps it in memory.
    ///   - webhookPolicy: where webhooks may be registered to (tests with loopback receivers allow loopback).
    public static func make(
        at instant: Date = Fixtures.chicagoMonday(hour: 9), sampleCafes: Bool = false,
        dataDirectory: URL? = nil,
        webhookPolicy: WebhookAddressPolicy = WebhookAddressPolicy()
    )
        async throws -> TestEnvironment
    {
        let clock = TestClock(instant)
        let stores = try CanteenStores.open(dataDirectory: dataDirectory, clock: clock.closure)
        var documents = [try Fixtures.cafeAndMenu()]
        documents.append(try Fixtures.cafeAndMenu(id: "othercafe", major: 901))
        try await stores.cafes.importCafes(documents)
        if sampleCafes {
            try await stores.cafes.importCafes(try CafeFiles.load(directory: Fixtures.menusDirectory).get())
        }
        var services = stores.apiServices(strings: Self.strings, clock: clock.closure, webhookPolicy: webhookPolicy)
        // Tests run side by side on a busy machine: a readiness check is not cut at 3 s here.
        services.readiness = Readiness(cafes: stores.cafes, database: stores.health, timeout: .seconds(60))
        return TestEnvironment(
            stores: stores, clock: clock, services: services,
            ops: try await stores.tokens.createToken(role: .ops, cafeID: nil, name: "ops").secret,
            kiosk: try await stores.tokens.createToken(role: .kiosk, cafeID: nil, name: "kiosk").secret,
            kitchen: try await stores.tokens.createToken(role: .kitchen, cafeID: nil, name: "kitchen").secret,
            boundKiosk: try await stores.tokens.createToken(role: .kiosk, cafeID: "testcafe", name: "bound").secret)
    }

    /// Webhooks may go to loopback (127.0.0.0/8): what the tests' receivers listen on, as
    /// `canteen serve --webhook-allow-private 127.0.0.0/8` would allow.
    public static let loopbackWebhooks = WebhookAddressPolicy(allowing: [try! IPAddressRange("127.0.0.0/8")])

    /// The repository's `Locales/`, loaded once.
    public static let strings: Strings = {
        do {
            return try Strings(directory: Fixtures.repositoryRoot.appendingPathComponent("Locales"))
        } catch {
            fatalError("Locales/ cannot be read: \(error)")
        }
    }()

    /// How many rows a table holds.
    public func rowCount(_ table: String) async throws -> Int {
        try await stores.sqliteDatabase!.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    /// A fresh temporary folder for an on-disk database (removed by the caller).
    public static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("canteen-test-\(UUID().uuidString)")
    }
}
