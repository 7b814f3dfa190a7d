import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

extension PostgresDatabase {
    /// Runs `body` with a copy target: one transaction that commits only when `body` returns,
    /// so an interrupted copy leaves the database as empty as it found it. Two copies into one
    /// database wait for each other (an advisory lock), and the second finds it not empty.
    public func copying<T: Sendable>(_ body: @escaping @Sendable (CopyTarget) async throws -> T) async throws -> T {
        try await withConnection(unbounded: true) { connection in
            try await connection.run("BEGIN", logger: self.logger)
            do {
                try await connection.run("SELECT pg_advisory_xact_lock(\(Self.copyLock))", logger: self.logger)
                let value = try await body(CopyTarget(connection: connection, logger: self.logger))
                try await connection.run("COMMIT", logger: self.logger)
                return value
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }

    /// "CANTCOPY" as 8 bytes.
    static let copyLock: Int64 = 0x43_41_4E_54_43_4F_50_59

    /// Writes copied rows inside the copy's transaction, converting each value to its column's type.
    public struct CopyTarget: @unchecked Sendable {
        // The connection is used by one task at a time, inside `copying`.
        let connection: PostgresConnection
        let logger: Logger

        /// The tables of the Canteen schema (the engine's own `canteenMigration` aside).
        public func tables() async throws -> [String] {
            try await connection.rows(
                """
                SELECT table_name::text FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                    AND table_name NOT IN ('canteenmigration', 'serverkey')
                ORDER BY table_name
                """, logger: logger
            ).map { try $0.decode(String.self) }
        }

        /// How many rows `table` holds.
        public func count(_ table: String) async throws -> Int {
            guard
                let row = try await connection.firstRow(
                    PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM \(try identifier(table))"),
                    logger: logger)
            else { return 0 }
            return try row.decode(Int.self)
        }

        /// The feed's position (`feedSequence`), which a copy carries over rather than inserts.
        public func setFeedPosition(_ value: Int64) async throws {
            try await connection.run("UPDATE feedSequence SET value = \(value) WHERE id = 1", logger: logger)
        }

        /// Identity columns (`webhookAttempt.id`, `auditEntry.id`) continue after the copied rows' ids.
        public func advanceIdentities() async throws {
            try await connection.run(
                """
                SELECT setval(pg_get_serial_sequence('webhookattempt', 'id'), COALESCE(MAX(id), 0) + 1, false)
                FROM webhookAttempt
                """, logger: logger)
            try await connection.run(
                """
                SELECT setval(pg_get_serial_sequence('auditentry', 'id'), COALESCE(MAX(id), 0) + 1, false)
                FROM auditEntry
                """, logger: logger)
        }

        /// Replaces the key made at migration with the copied database's (`card.key`). Servers
        /// read the key at start: copy before starting them, or restart them after.
        public func setServerKey(_ key: Data) async throws {
            try await connection.run("UPDATE serverKey SET key = \(key) WHERE id = 1", logger: logger)
        }

        public func feedPosition() async throws -> Int64 {
            guard let row = try await connection.firstRow("SELECT value FROM feedSequence WHERE id = 1", logger: logger)
            else {
                return 0
            }
            return try row.decode(Int64.self)
        }

        /// Inserts `rows` into `table` (columns matched by name, case-insensitively); a value
        /// that does not fit its column is an error naming the table, the row and the column.
        public func insert(_ copied: CopiedRows, into table: String, firstRow: Int) async throws {
            guard !copied.rows.isEmpty else { return }
            let types = try await columnTypes(table)
            let names = copied.columns.map { $0.lowercased() }
            let missing = names.filter { types[$0] == nil }
            guard missing.isEmpty else {
                throw CanteenError(
                    .invalid, code: .invalidField,
                    message: "table \(table) of the target has no column \(missing.joined(separator: ", "))",
                    field: "to")
            }
            // At most 65,535 parameters per statement.
            let perStatement = max(1, 60_000 / max(1, names.count))
            var start = 0
            while start < copied.rows.count {
                let slice = copied.rows[start..<min(copied.rows.count, start + perStatement)]
                var bindings = PostgresBindings(capacity: slice.count * names.count)
                var tuples: [String] = []
                for (offset, row) in slice.enumerated() {
                    var placeholders: [String] = []
                    for (position, value) in row.enumerated() {
                        let column = names[position]
                        try Self.bind(
                            value, as: types[column] ?? "text", to: &bindings,
                            naming: (table, "#\(firstRow + start + offset)", column))
                        placeholders.append("$\(bindings.count)")
                    }
                    tuples.append("(" + placeholders.joined(separator: ", ") + ")")
                }
                let columns = try names.map(identifier).joined(separator: ", ")
                try await connection.run(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO \(try identifier(table)) (\(columns)) VALUES \(tuples.joined(separator: ", "))
                            """, binds: bindings), logger: logger)
                start += slice.count
            }
        }

        /// Column name → PostgreSQL type name of `table`.
        private func columnTypes(_ table: String) async throws -> [String: String] {
            var types: [String: String] = [:]
            for row in try await connection.rows(
                """
                SELECT column_name::text, data_type::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(table.lowercased())
                """, logger: logger)
            {
                let (name, type) = try row.decode((String, String).self)
                types[name] = type
            }
            guard !types.isEmpty else {
                throw CanteenError(
                    .invalid, code: .invalidField, message: "the target has no table \(table)", field: "to")
            }
            return types
        }

        /// A plain lower-case identifier, or an error (names come from the source database).
        private func identifier(_ name: String) throws -> String {
            let lower = name.lowercased()
            guard !lower.isEmpty, lower.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw CanteenError(
                    .invalid, code: .invalidField, message: "'\(name)' is not a table or column name", field: "from")
            }
            return "\"\(lower)\""
        }

        /// Binds `value` as PostgreSQL's `type`.
        static func bind(
            _ value: ColumnValue, as type: String, to bindings: inout PostgresBindings,
            naming: (table: String, row: String, column: String)
        ) throws {
            let invalid = StoredRow.invalid(
                table: naming.table, id: naming.row,
                "column \(naming.column) holds \(value), which is not a \(type)")
            switch (type, value) {
            case (_, .null): bindings.appendNull()
            case ("text", .text(let text)): bindings.append(text)
            case ("text", .integer(let integer)): bindings.append(String(integer))
            case ("bigint", .integer(let integer)), ("integer", .integer(let integer)): bindings.append(integer)
            case ("bigint", .bool(let bool)): bindings.append(Int64(bool ? 1 : 0))
            case ("boolean", .bool(let bool)): bindings.append(bool)
            case ("boolean", .integer(let integer)) where integer == 0 || integer == 1: bindings.append(integer == 1)
            case ("timestamp with time zone", .date(let date)): bindings.append(date)
            case ("bytea", .blob(let data)): try bindings.append(data)
            case ("bytea", .text(let text)): try bindings.append(Data(text.utf8))
            case ("double precision", .real(let real)): bindings.append(real)
            default: throw invalid
            }
        }
    }
}
