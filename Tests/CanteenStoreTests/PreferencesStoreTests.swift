import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import Testing

@Suite("Preferences store, on SQLite and PostgreSQL")
struct PreferencesStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    /// A store over `database` holding the test café.
    func store(_ database: AppDatabase) async throws -> PreferencesStore {
        try await CafeStore(database: database, clock: clock.closure).importCafes([try Fixtures.cafeAndMenu()])
        return PreferencesStore(database: database, clock: clock.closure)
    }

    /// Runs `body` on the preferences of a fresh database of `backend` holding the test café.
    func withStore(_ backend: StoreBackend, _ body: (any PreferencesRepository) async throws -> Void) async throws {
        try await backend.withStores(clock: clock) { server in
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            try await body(server.stores.preferences)
        }
    }

    /// The `CanteenError` that `body` throws (a test issue when it throws nothing or another error).
    func canteenError(_ body: () async throws -> Void) async -> CanteenError? {
        await #expect(throws: CanteenError.self) { try await body() }
    }

    @Test(
        "a user who never wrote has an empty document at version 0 and sees the registered default",
        arguments: StoreBackend.available)
    func fresh(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            #expect(try await store.document(userID: "ana") == PreferenceDocument())
            #expect(
                try await store.merged(userID: "ana")
                    == MergedPreferences(
                        values: ["defaultLocation": "nearest"], sources: ["defaultLocation": .registered], version: 0))
            #expect(
                try await store.defaultLocation(userID: "ana")
                    == EffectiveDefaultLocation(location: .nearest, source: .registered))
        }
    }

    @Test("every write moves the version by one, removals and emptying included", arguments: StoreBackend.available)
    func versions(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let first = try await store.update(userID: "ana", changes: ["locale": .set("es-MX")], condition: nil)
            let second = try await store.update(userID: "ana", changes: ["locale": .remove], condition: nil)
            let third = try await store.update(userID: "ana", changes: ["locale": .remove], condition: nil)
            #expect([first.version, second.version, third.version] == [1, 2, 3])
            #expect(third.values.isEmpty)
            #expect(try await store.document(userID: "ana") == PreferenceDocument(values: [:], version: 3))
        }
    }

    @Test("users' documents are apart from each other", arguments: StoreBackend.available)
    func separateUsers(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.update(userID: "ana", changes: ["defaultLocation": .set("testcafe")], condition: nil)
            #expect(
                try await store.defaultLocation(userID: "ana")
                    == EffectiveDefaultLocation(location: .cafe("testcafe"), source: .user))
            #expect(try await store.defaultLocation(userID: "bo").source == .registered)
        }
    }

    @Test(
        "site defaults answer below the user's values and above the registered ones", arguments: StoreBackend.available)
    func siteDomain(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            try await store.setSiteDefault(key: "defaultLocation", value: "testcafe")
            try await store.setSiteDefault(key: "app.banner", value: ["on": true])
            #expect(try await store.preference(userID: "ana", key: "defaultLocation")?.source == .site)
            _ = try await store.update(userID: "ana", changes: ["defaultLocation": .set("nearest")], condition: nil)
            let merged = try await store.merged(userID: "ana")
            #expect(merged.sources == ["defaultLocation": .user, "app.banner": .site])
            try await store.removeSiteDefault(key: "app.banner")
            #expect(try await store.preference(userID: "ana", key: "app.banner") == nil)
            let missing = await canteenError { try await store.removeSiteDefault(key: "app.banner") }
            #expect(missing?.code == .preferenceNotFound)
        }
    }

    @Test("a site default is validated as a user's value is", arguments: StoreBackend.available)
    func siteValidation(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            let error = await canteenError {
                try await store.setSiteDefault(key: "defaultLocation", value: "nosuchcafe")
            }
            #expect(error?.code == .invalidPreference)
            #expect(try await store.siteDefaults().isEmpty)
        }
    }

    @Test("defaultLocation naming an unknown café is rejected and changes nothing", arguments: StoreBackend.available)
    func unknownCafe(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.update(userID: "ana", changes: ["a": .set(1)], condition: nil)
            let error = await canteenError {
                _ = try await store.update(
                    userID: "ana", changes: ["b": .set(2), "defaultLocation": .set("nosuchcafe")], condition: nil)
            }
            #expect(error?.code == .invalidPreference)
            #expect(error?.field == "defaultLocation")
            #expect(try await store.document(userID: "ana") == PreferenceDocument(values: ["a": 1], version: 1))
        }
    }

    @Test("a write with a stale If-Match is version_mismatch and changes nothing", arguments: StoreBackend.available)
    func staleVersion(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.update(userID: "ana", changes: ["a": .set(1)], condition: .matches([0]))
            let error = await canteenError {
                _ = try await store.update(userID: "ana", changes: ["a": .set(2)], condition: .matches([0]))
            }
            #expect(error?.code == .versionMismatch)
            #expect(error?.kind == .preconditionFailed)
            #expect(try await store.document(userID: "ana") == PreferenceDocument(values: ["a": 1], version: 1))
        }
    }

    @Test(
        "of 20 concurrent writers with the same If-Match on two servers of one database, exactly one wins",
        arguments: StoreBackend.available)
    func concurrentWriters(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            try await servers[0].stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            let stores = servers.map(\.stores.preferences)
            _ = try await stores[0].update(userID: "ana", changes: ["start": .set(true)], condition: nil)

            let outcomes = await withTaskGroup(of: String.self) { group in
                for writer in 0..<20 {
                    let store = stores[writer % 2]
                    group.addTask {
                        do {
                            _ = try await store.update(
                                userID: "ana", changes: ["writer": .set(.int(Int64(writer)))],
                                condition: .matches([1]))
                            return "won"
                        } catch let error as CanteenError {
                            return error.code.rawValue
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "won" }.count == 1)
            #expect(outcomes.filter { $0 == "version_mismatch" }.count == 19)
            let document = try await stores[1].document(userID: "ana")
            #expect(document.version == 2)
            #expect(document.values.count == 2)
        }
    }

    @Test("replacing a document validates it whole and keeps the version moving", arguments: StoreBackend.available)
    func replace(backend: StoreBackend) async throws {
        try await withStore(backend) { store async throws in
            _ = try await store.update(userID: "ana", changes: ["old": .set(1)], condition: nil)
            let replaced = try await store.replace(
                userID: "ana", values: ["new": "x", "locale": "fr-CA"], condition: nil)
            #expect(replaced == PreferenceDocument(values: ["new": "x", "locale": "fr-CA"], version: 2))
            let error = await canteenError {
                _ = try await store.replace(userID: "ana", values: ["locale": "not a tag"], condition: nil)
            }
            #expect(error?.field == "locale")
            #expect(try await store.document(userID: "ana") == replaced)
        }
    }

    @Test("values survive closing and reopening the database file, byte for byte")
    func durable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let values: [String: JSONValue] = ["big": .int(.max), "tenth": .double(0.1), "text": "東京 ☕️", "none": []]
        do {
            let database = try AppDatabase.open(directory: directory)
            let store = try await store(database)
            _ = try await store.replace(userID: "ana", values: values, condition: nil)
            try database.close()
        }
        let reopened = PreferencesStore(database: try AppDatabase.open(directory: directory))
        let document = try await reopened.document(userID: "ana")
        #expect(document.values == values)
        #expect(document.encoded() == JSONValue.object(values).encoded())
    }

    @Test("the v3 migration adds the preference tables after the cafés and orders")
    func migration() async throws {
        let database = try AppDatabase.inMemory()
        let tables = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables.contains("userPreferences"))
        #expect(tables.contains("sitePreferences"))
        #expect(tables.contains("cafe"))
        let applied = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(applied.firstIndex(of: "v3: preferences") == 2)
    }
}
