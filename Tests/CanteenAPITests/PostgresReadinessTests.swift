import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenPostgres
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `GET /readyz` on PostgreSQL: a private server of its own (scripts/private-postgres.sh), stopped
/// under the running application and started again.
@Suite("Readiness: GET /readyz on PostgreSQL", .enabled(if: PrivatePostgres.available))
struct PostgresReadinessTests {
    @Test("PostgreSQL stopped under a running server: /readyz answers 503 saying so, then 200 once it is back")
    func postgresDown() async throws {
        let server = try PrivatePostgres.start()
        defer { server.remove() }
        let stores = CanteenStores.open(postgres: try PostgresURL(server.url), logger: StoreBackend.quietLogger)
        try await stores.withDatabase { stores in
            // Once migrated (on a busy machine a first call may find no connection within the pool's 3 s).
            let migrated = ContinuousClock.now + .seconds(120)
            while true {
                do {
                    try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
                    break
                } catch let error as CanteenError
                    where error.code == .databaseUnavailable && ContinuousClock.now < migrated
                {
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            var services = stores.apiServices(strings: TestEnvironment.strings)
            // The pool's own deadlines (3 s for a connection, 5 s a call) answer first, not the probe's.
            services.readiness = Readiness(cafes: stores.cafes, database: stores.health, timeout: .seconds(60))
            let app = Application(router: CanteenRouter.build(services).router)
            try await app.test(.router) { client in
                let ready = try await client.send(.get, "/readyz")
                #expect(ready.status == .ok)
                #expect(try ready.json["database"]?.stringValue == "postgresql")

                // When PostgreSQL stops.
                try server.stop()
                let down = try await client.send(.get, "/readyz")
                #expect(down.status == .serviceUnavailable)
                let reason = try down.json["reason"]?.stringValue ?? ""
                #expect(reason.localizedCaseInsensitiveContains("postgresql"), "\(reason)")
                #expect(try await client.send(.get, "/healthz").status == .ok)

                // Then, once it is back, ready again (the pool reconnects by itself).
                try server.startAgain()
                var answer = try await client.send(.get, "/readyz")
                let deadline = ContinuousClock.now + .seconds(60)
                while answer.status != .ok && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(250))
                    answer = try await client.send(.get, "/readyz")
                }
                #expect(answer.status == .ok)
            }
        }
    }
}

/// A throw-away PostgreSQL server of the test's own (scripts/private-postgres.sh).
struct PrivatePostgres {
    let directory: String
    let url: String

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/initdb")
    }

    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/private-postgres.sh").path

    static func start() throws -> PrivatePostgres {
        let directory = "/tmp/canteen-readyz-\(UUID().uuidString.prefix(8))"
        let url = try run(["start", directory]).trimmingCharacters(in: .whitespacesAndNewlines)
        return PrivatePostgres(directory: directory, url: url)
    }

    func stop() throws { _ = try Self.run(["stop", directory]) }

    func startAgain() throws { _ = try Self.run(["start", directory]) }

    func remove() {
        _ = try? Self.run(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        // waitpid, not waitUntilExit: called from a test's task, Foundation never saw the script
        // end (it stayed a zombie) and the test hung.
        var status: Int32 = 0
        while waitpid(process.processIdentifier, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw CanteenError(.internal, code: .internalError, message: "private-postgres.sh \(arguments) failed")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
