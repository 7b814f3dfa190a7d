import Foundation
import GRDB
import Testing

@testable import CanteenStore

/// What SQLite does each time the order path writes a row, read from its own plans (`EXPLAIN`)
/// on a freshly migrated database.
@Suite("What writing a row costs SQLite")
struct WriteCostTests {
    static func database() throws -> (AppDatabase, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-test-\(UUID().uuidString)")
        return (try AppDatabase.open(directory: directory), directory)
    }

    @Test("no insert or update of a table builds a temporary b-tree for a partial index's WHERE")
    func noTemporaryTablePerWrite() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await database.writer.read { db in
            let tables = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT tbl_name FROM sqlite_master
                    WHERE type = 'index' AND sql LIKE '% WHERE %' ORDER BY tbl_name
                    """)
            #expect(tables.contains("ticket"))
            for table in tables {
                let columns = try db.columns(in: table).map(\.name)
                let nulls = StatementArguments(Array(repeating: DatabaseValue.null, count: columns.count + 1))
                for (sql, arguments) in [
                    ("INSERT INTO \(table) DEFAULT VALUES", StatementArguments()),
                    (
                        "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE rowid = ?",
                        nulls
                    ),
                ] {
                    let opcodes = try Row.fetchAll(db, sql: "EXPLAIN \(sql)", arguments: arguments).map {
                        $0["opcode"] as String
                    }
                    #expect(!opcodes.isEmpty, "\(sql)")
                    #expect(!opcodes.contains("OpenEphemeral"), "\(sql) builds a temporary b-tree")
                }
            }
        }
    }

    @Test("queries for a café's open tickets read the open tickets' index")
    func openTicketsUseTheirIndex() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await database.writer.read { db in
            for sql in [
                "SELECT COUNT(*) FROM ticket WHERE cafeId = ? AND \(TicketStore.openPredicate)",
                "SELECT station, status, COUNT(*) FROM ticket WHERE cafeId = ? AND \(TicketStore.openPredicate) GROUP BY station, status",
            ] {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: ["c"]).map {
                    $0["detail"] as String
                }
                #expect(plan.contains { $0.contains("USING INDEX ticket_open_on_cafeId") }, "\(sql): \(plan)")
            }
        }
    }
}
