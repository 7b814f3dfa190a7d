import Foundation
import GRDB
import Testing

@testable import CanteenStore

@Suite("Statements of the order path, bound with SQLite's C API")
struct BoundStatementTests {
    static let insert = "INSERT INTO sample (id, name, note, count, total, hash) VALUES (?, ?, ?, ?, ?, ?)"

    static func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE sample (
                        id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, note TEXT, count INTEGER,
                        total INTEGER NOT NULL, hash BLOB NOT NULL)
                    """)
        }
        return queue
    }

    @Test("values read back as bound: empty text is not NULL, nil is, bytes and 64-bit integers survive")
    func values() throws {
        let queue = try Self.queue()
        try queue.write { db in
            var statement = try BoundStatement(db, sql: Self.insert)
            statement.bind("a")
            statement.bind("")
            statement.bind(nil as String?)
            statement.bind(nil as Int?)
            statement.bind(Int64.min)
            statement.bind(Data([0, 1, 0xFF]))
            try statement.run()
            // The same cached statement again, with other values.
            var again = try BoundStatement(db, sql: Self.insert)
            again.bind("b")
            again.bind("抹茶 🍵 \"quoted\"")
            again.bind("note" as String?)
            again.bind(7 as Int?)
            again.bind(Int64.max)
            again.bind(Data())
            try again.run()
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM sample ORDER BY id") }
        #expect(rows.count == 2)
        #expect(rows[0]["name"] as String? == "")
        #expect(rows[0]["note"] as String? == nil)
        #expect((rows[0]["note"] as DatabaseValue).isNull)
        #expect((rows[0]["count"] as DatabaseValue).isNull)
        #expect(rows[0]["total"] as Int64 == Int64.min)
        #expect(rows[0]["hash"] as Data == Data([0, 1, 0xFF]))
        #expect(rows[1]["name"] as String == "抹茶 🍵 \"quoted\"")
        #expect(rows[1]["note"] as String? == "note")
        #expect(rows[1]["count"] as Int? == 7)
        #expect(rows[1]["total"] as Int64 == Int64.max)
        #expect(rows[1]["hash"] as Data == Data())
    }

    @Test("a refused row throws GRDB's error naming the constraint, writes nothing, and the statement runs again")
    func constraint() throws {
        let queue = try Self.queue()
        try queue.write { db in
            func insert(_ id: String) throws {
                var statement = try BoundStatement(db, sql: Self.insert)
                statement.bind(id)
                statement.bind("n")
                statement.bind(nil as String?)
                statement.bind(nil as Int?)
                statement.bind(1 as Int64)
                statement.bind(Data([1]))
                try statement.run()
            }
            try insert("x")
            let error = try #require(throws: DatabaseError.self) { try insert("x") }
            #expect(error.resultCode == .SQLITE_CONSTRAINT)
            #expect(error.message?.contains("sample.id") == true)
            try insert("y")
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample") } == 2)
    }

    @Test("too few values is an error, not a row with NULLs")
    func tooFew() throws {
        let queue = try Self.queue()
        try queue.write { db in
            let error = try #require(throws: DatabaseError.self) {
                var statement = try BoundStatement(db, sql: Self.insert)
                statement.bind("a")
                statement.bind("n")
                try statement.run()
            }
            #expect(error.resultCode == .SQLITE_MISUSE)
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample") } == 0)
    }
}
