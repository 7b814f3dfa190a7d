import CanteenApp
import CanteenCore
import CanteenTestSupport
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import CanteenPostgres
@testable import CanteenStore

/// The orders' user and coupon indexes hold only the orders that have one (a kiosk's order has
/// neither), and the lookups by user and by coupon still read them, on both engines.
@Suite("The orders' user and coupon indexes: only orders that have one, still read")
struct OrderIndexTests {
    /// PostgreSQL's lookups by user (the latest café, a person's orders) and by coupon (its foreign
    /// key's check), each with the index it must read.
    static let postgresLookups = [
        (
            "SELECT cafeId FROM customerOrder WHERE userId = 'ana' ORDER BY createdAt DESC, id DESC LIMIT 1",
            "customerOrder_on_userId_createdAt"
        ),
        ("SELECT id FROM customerOrder WHERE userId = 'ana'", "customerOrder_on_userId_createdAt"),
        ("SELECT id FROM customerOrder WHERE couponId = 'cpn_1'", "customerOrder_on_couponId"),
    ]

    @Test("SQLite: each index is partial (NOT NULL) and the lookups read it")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase.open(directory: directory)
        try await database.writer.read { db in
            for (name, column) in [
                ("customerOrder_on_userId_createdAt", "userId"), ("customerOrder_on_couponId", "couponId"),
            ] {
                let sql = try String.fetchOne(
                    db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name])
                #expect(sql?.hasSuffix("WHERE \(column) IS NOT NULL") == true, "\(name): \(sql ?? "missing")")
            }
            // The store's own queries, and the coupon's foreign key check.
            for (sql, arguments, index): (String, StatementArguments, String) in [
                (OrderStore.latestCafeSQL, ["ana"], "customerOrder_on_userId_createdAt"),
                (PersonalDataStore.orderIDsSQL, ["ana", 10], "customerOrder_on_userId_createdAt"),
                ("SELECT id FROM customerOrder WHERE couponId = ?", ["cpn_1"], "customerOrder_on_couponId"),
            ] {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: arguments).map {
                    $0["detail"] as String
                }
                #expect(plan.contains { $0.contains("INDEX \(index)") }, "\(sql): \(plan)")
            }
        }
    }

    @Test(
        "PostgreSQL: each index is partial (NOT NULL) and the lookups can read it", arguments: StoreBackend.postgresOnly
    )
    func postgres(backend: StoreBackend) async throws {
        try await backend.withStores(clock: TestClock(Fixtures.chicagoMonday(hour: 9))) { test in
            let database = try #require(test.stores.postgresDatabase)
            try await database.withConnection { connection in
                for (name, column) in [
                    ("customerorder_on_userid_createdat", "userid"), ("customerorder_on_couponid", "couponid"),
                ] {
                    var definition = ""
                    for try await row in try await connection.query(
                        "SELECT indexdef FROM pg_indexes WHERE indexname = \(name)", logger: database.logger)
                    {
                        definition = try row.decode(String.self)
                    }
                    #expect(definition.hasSuffix("WHERE (\(column) IS NOT NULL)"), "\(name): \(definition)")
                }
                // Whether the planner can read the index at all: sequential scans priced out.
                try await connection.query("SET enable_seqscan = off", logger: database.logger)
                for (sql, index) in Self.postgresLookups {
                    var plan: [String] = []
                    for try await row in try await connection.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN \(sql)"), logger: database.logger)
                    {
                        plan.append(try row.decode(String.self))
                    }
                    #expect(plan.contains { $0.lowercased().contains(index.lowercased()) }, "\(sql): \(plan)")
                }
                try await connection.query("RESET enable_seqscan", logger: database.logger)
            }
        }
    }
}
