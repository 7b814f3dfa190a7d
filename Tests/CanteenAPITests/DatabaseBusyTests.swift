import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// SQLite's write lock held by another process for longer than the server's busy timeout (5 s)
/// is the database being unavailable, as a PostgreSQL server that cannot be reached is: 503
/// `database_unavailable` with `Retry-After`, nothing written, never a 500.
@Suite("A busy SQLite database")
struct DatabaseBusyTests {
    @Test("an order and a token written while another process holds the write lock: 503 database_unavailable")
    func busy() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        let orderKey: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "busy-1"]
        let order: JSONValue = [
            "cafeId": "testcafe", "lines": [["itemId": "salad", "quantity": 1]],
            "customer": ["name": "Noor"],
        ]
        try await withRouter(environment) { client in
            let ordersBefore = try await environment.rowCount("customerOrder")
            // Given another process in a write transaction, held past the busy timeout.
            let holder = try SQLiteWriteLock(database: directory.appendingPathComponent("canteen.sqlite").path)
            defer { holder.release() }

            // When a kiosk places an order (the group commit) and ops makes a token (a plain write).
            let placed = try await client.send(
                .post, "/v1/orders", token: environment.boundKiosk, json: order,
                headers: orderKey)
            let token = try await client.send(
                .post, "/v1/tokens", token: environment.ops,
                json: ["role": "kiosk", "name": "busy"])

            // Then both are 503 database_unavailable, retry after a second, and name no internals.
            for answer in [placed, token] {
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.errorCode == "database_unavailable")
                #expect(answer.headers[.retryAfter] == "1")
                let body = String(buffer: answer.body)
                #expect(!body.contains("locked") && !body.contains("SQLITE"), "\(body)")
            }

            // And once the lock is gone, the same order with the same key is placed, once.
            holder.release()
            let again = try await client.send(
                .post, "/v1/orders", token: environment.boundKiosk, json: order,
                headers: orderKey)
            #expect(again.status == .created)
            #expect(try await environment.rowCount("customerOrder") == ordersBefore + 1)
        }
    }
}

/// Another process (Python's sqlite3) in a write transaction (`BEGIN IMMEDIATE`) on `database`
/// until released. It waits for the end of its standard input rather than for a signal: a
/// process started from a thread that blocks signals inherits that mask, and would never see
/// `terminate()`; and if the test dies, its end of the pipe closes and the lock goes with it.
final class SQLiteWriteLock: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()

    init(database: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.read()
            """, database,
        ]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Wait until it holds the lock.
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).contains("locked") else {
            release()
            throw CanteenError(.internal, code: .internalError, message: "the lock holder did not take the lock")
        }
    }

    /// Ends the other process (its input closes), and with it its transaction.
    func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
