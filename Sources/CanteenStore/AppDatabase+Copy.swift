import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

extension AppDatabase {
    /// The database as one consistent snapshot to copy from (`canteen db copy`): every table is
    /// read as of the same instant, whatever other processes write meanwhile.
    public func copySource() throws -> CopySource {
        guard let pool = writer as? DatabasePool else {
            throw CanteenError(
                .invalid, code: .invalidField, message: "only a database on disk can be copied", field: "from")
        }
        return CopySource(snapshot: try pool.makeSnapshot())
    }

    /// Reads tables of a snapshot, typing each value by its column's declared type.
    public struct CopySource: Sendable {
        let snapshot: DatabaseSnapshot

        /// Tables that are the engine's own and never copied: GRDB's migrations, SQLite's
        /// internals, the change counters of SQLite's caches (PostgreSQL notifies instead).
        public static let engineTables: Set<String> = ["grdb_migrations", "sqlite_sequence", "storeChange"]

        /// Every table of the database.
        public func tables() async throws -> [String] {
            try await snapshot.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
                        """)
            }
        }

        /// How many rows `table` holds.
        public func count(_ table: String) async throws -> Int {
            try await snapshot.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
            }
        }

        /// At most `limit` rows of `table` after the first `offset`, in rowid order.
        public func rows(_ table: String, offset: Int, limit: Int) async throws -> CopiedRows {
            try await snapshot.read { db in
                let columns = try db.columns(in: table)
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM \(table.quotedDatabaseIdentifier) ORDER BY rowid LIMIT ? OFFSET ?
                        """, arguments: [limit, offset])
                return CopiedRows(
                    columns: columns.map(\.name),
                    rows: try rows.enumerated().map { index, row in
                        try columns.enumerated().map { position, column in
                            try Self.value(
                                row[position], declared: column.type, table: table, column: column.name,
                                row: offset + index + 1)
                        }
                    })
            }
        }

        /// A stored value typed by its column: DATETIME columns become instants, BOOLEAN ones
        /// booleans; one that does not read as its column's type is an error naming it.
        static func value(
            _ value: DatabaseValue, declared: String, table: String, column: String,
            row: Int
        ) throws -> ColumnValue {
            if value.isNull { return .null }
            let invalid = StoredRow.invalid(table: table, id: "#\(row)", "column \(column) does not hold a \(declared)")
            switch declared.uppercased() {
            case "DATETIME":
                guard let date = Date.fromDatabaseValue(value) else { throw invalid }
                return .date(date)
            case "BOOLEAN":
                guard let bool = Bool.fromDatabaseValue(value) else { throw invalid }
                return .bool(bool)
            default:
                switch value.storage {
                case .null: return .null
                case .int64(let integer): return .integer(integer)
                case .double(let real): return .real(real)
                case .string(let text): return .text(text)
                case .blob(let data): return .blob(data)
                }
            }
        }
    }
}
