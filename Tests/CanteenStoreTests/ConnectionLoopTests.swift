import CanteenApp
import CanteenTestSupport
import Foundation
import PostgresNIO
import Testing

@testable import CanteenPostgres

/// A transaction on a pooled PostgreSQL connection runs on that connection's event loop
/// (`ConnectionLoopExecutor`): each statement's answer resumes it on the thread that read it, not
/// on a thread of the cooperative pool woken for it. A call of one statement does not.
@Suite("PostgreSQL: transactions run on their connection's event loop")
struct ConnectionLoopTests {
    @Test(
        "a transaction's statements resume on the connection's loop, after a sleep too; an autocommit call does not",
        arguments: StoreBackend.postgresOnly)
    func onTheConnectionsLoop(backend: StoreBackend) async throws {
        try await backend.withServers(1, clock: TestClock(Date()), onDisk: false) { servers in
            let database = try #require(servers[0].stores.postgresDatabase)
            let inTransaction = try await database.transaction { connection -> [Bool] in
                var onLoop: [Bool] = []
                for _ in 0..<3 {
                    _ = try await connection.rows("SELECT 1", logger: database.logger)
                    onLoop.append(connection.eventLoop.inEventLoop)
                }
                // A wait that is not a statement (a timer) resumes there as well.
                try await Task.sleep(for: .milliseconds(20))
                onLoop.append(connection.eventLoop.inEventLoop)
                return onLoop
            }
            #expect(inTransaction == [true, true, true, true])
            let autocommit = try await database.withConnection { connection -> Bool in
                _ = try await connection.rows("SELECT 1", logger: database.logger)
                return connection.eventLoop.inEventLoop
            }
            #expect(!autocommit)
        }
    }
}
