import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `GET /readyz` on SQLite: ready once cafés are loaded and while the database can be written.
/// (PostgreSQL's: `PostgresReadinessTests`.)
@Suite("Readiness: GET /readyz on SQLite")
struct ReadinessTests {
    @Test("/readyz answers 200 ready with the engine and the cafés' count, without a token; /healthz stays ok")
    func ready() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let response = try await client.send(.get, "/readyz")
            #expect(response.status == .ok)
            let body = try response.json
            #expect(body["status"]?.stringValue == "ready")
            #expect(body["database"]?.stringValue == "sqlite")
            #expect(body["cafes"] == .int(2))
            #expect(body["reason"] == nil)
            #expect(try await client.send(.get, "/healthz").status == .ok)
        }
    }

    @Test("/readyz answers 503 naming the reason while no café is loaded; /healthz answers 200 meanwhile")
    func noCafe() async throws {
        let stores = try CanteenStores.open(dataDirectory: nil)
        var services = stores.apiServices(strings: TestEnvironment.strings)
        services.readiness = Readiness(cafes: stores.cafes, database: stores.health, timeout: .seconds(60))
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.router) { client in
            let response = try await client.send(.get, "/readyz")
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "5")
            let body = try response.json
            #expect(body["status"]?.stringValue == "not_ready")
            #expect(body["reason"]?.stringValue?.contains("no café is configured") == true)
            #expect(try await client.send(.get, "/healthz").status == .ok)
        }
    }

    @Test("the SQLite file made unwritable under a running server: 503 naming the file, then 200 once writable again")
    func unwritable() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let file = directory.appendingPathComponent("canteen.sqlite").path
        try await withRouter(environment) { client in
            #expect(try await client.send(.get, "/readyz").status == .ok)

            try await ReadOnlyFile.while(file) {
                let response = try await client.send(.get, "/readyz")
                #expect(response.status == .serviceUnavailable)
                let reason = try response.json["reason"]?.stringValue ?? ""
                #expect(reason.contains("not writable") && reason.contains(file), "\(reason)")
            }

            #expect(try await client.send(.get, "/readyz").status == .ok)
        }
    }

    @Test(
        "another process holds the write lock: 503 at the deadline or busy timeout, for probes arriving meanwhile too, from one check"
    )
    func locked() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let health = CountedHealth(environment.stores.health)
        var services = environment.services
        services.readiness = Readiness(cafes: environment.stores.cafes, database: health, timeout: .seconds(3))
        let app = Application(router: CanteenRouter.build(services).router)
        try await app.test(.router) { client in
            // Given another process in a write transaction (held until released).
            let holder = try SQLiteWriteLock(database: directory.appendingPathComponent("canteen.sqlite").path)
            defer { holder.release() }

            // When three load balancers probe at once while that check waits for the lock (SQLite's
            // busy timeout is 5 s, the readiness deadline 3 s).
            async let first = client.send(.get, "/readyz")
            async let second = client.send(.get, "/readyz")
            async let third = client.send(.get, "/readyz")
            let answers = try await [first, second, third]

            // Then each is 503 saying the database did not answer (or is locked), and the database
            // was asked once, not once per probe.
            for answer in answers {
                #expect(answer.status == .serviceUnavailable)
                let reason = try answer.json["reason"]?.stringValue ?? ""
                #expect(
                    reason.contains("did not answer within 3") || reason.contains("database is locked"), "\(reason)")
            }
            #expect(health.checks.load(ordering: .relaxed) == 1)

            // And once the lock is gone the database is ready again.
            holder.release()
            var ready = try await client.send(.get, "/readyz")
            let until = ContinuousClock.now + .seconds(60)
            while ready.status != .ok && ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(200))
                ready = try await client.send(.get, "/readyz")
            }
            #expect(ready.status == .ok)
        }
    }

    @Test("probes arriving together on a healthy database are all ready (none is told a check is running)")
    func together() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let answers = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 { group.addTask { try await client.send(.get, "/readyz").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: .ok, count: 20))
        }
    }
}

/// The store's own health check, counting how often it is asked.
final class CountedHealth: DatabaseHealth {
    let checks = Atomic<Int>(0)
    private let health: any DatabaseHealth

    init(_ health: any DatabaseHealth) { self.health = health }

    var engine: String { health.engine }

    func problem() async -> String? {
        checks.add(1, ordering: .relaxed)
        return await health.problem()
    }
}

/// Makes a file unwritable for this process for the time of `body`: immutable (`chattr +i`) when
/// running as root, whom permissions do not stop; read-only (`chmod a-w`) otherwise.
enum ReadOnlyFile {
    static func `while`(_ path: String, _ body: () async throws -> Void) async throws {
        if getuid() == 0 {
            try run("/usr/bin/chattr", ["+i", path])
            defer { try? run("/usr/bin/chattr", ["-i", path]) }
            try await body()
        } else {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            defer {
                try? FileManager.default.setAttributes(
                    [.posixPermissions: attributes[.posixPermissions] ?? 0o644],
                    ofItemAtPath: path)
            }
            try await body()
        }
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CanteenError(.internal, code: .internalError, message: "\(tool) \(arguments) failed")
        }
    }
}
