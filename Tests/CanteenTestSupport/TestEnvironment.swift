import CanteenAPI
import CanteenApp
import CanteenCore
import Foundation

/// An in-memory Canteen with the test café (and optionally the sample cafés) and one token per role.
public struct TestEnvironment: Sendable {
    public let stores: CanteenStores
    public let clock: TestClock
    /// Bearer secrets: `ops`, unbound `kiosk` and `kitchen`, and `boundKiosk` for the test café only.
    public let ops: String
    public let kiosk: String
    public let kitchen: String
    public let boundKiosk: String

    /// `dataDirectory` puts the database in a file (a WAL pool, as served) instead of memory.
    public static func make(at instant: Date = Fixtures.chicagoMonday(hour: 9), sampleCafes: Bool = false,
                            dataDirectory: URL? = nil) async throws -> TestEnvironment {
        let clock = TestClock(instant)
        let stores = try CanteenStores.open(dataDirectory: dataDirectory, clock: clock.closure)
        var documents = [try Fixtures.cafeAndMenu()]
        documents.append(try Fixtures.cafeAndMenu(id: "othercafe", major: 901))
        try await stores.cafes.importCafes(documents)
        if sampleCafes {
            try await stores.cafes.importCafes(try CafeFiles.load(directory: Fixtures.menusDirectory).get())
        }
        return TestEnvironment(
            stores: stores, clock: clock,
            ops: try await stores.tokens.createToken(role: .ops, cafeID: nil, name: "ops").secret,
            kiosk: try await stores.tokens.createToken(role: .kiosk, cafeID: nil, name: "kiosk").secret,
            kitchen: try await stores.tokens.createToken(role: .kitchen, cafeID: nil, name: "kitchen").secret,
            boundKiosk: try await stores.tokens.createToken(role: .kiosk, cafeID: "testcafe", name: "bound").secret)
    }

    public var services: APIServices { stores.apiServices(clock: clock.closure) }
}
