import Logging
import PostgresNIO

/// A statement whose text never changes, run as a prepared statement: each connection has
/// PostgreSQL parse and plan it once, then sends only its values. For the statements every
/// order runs (claiming its key, writing it), where parsing and planning the text each time cost
/// the server more than executing it (docs/benchmarks.md, "Engines").
///
/// The text and the values come from one `PostgresQuery` (`query`), written as every other
/// statement is: a statement's text is its placeholder's, so the two cannot disagree, and each
/// run checks that its own text is the same (a placeholder whose text cannot be made leaves the
/// statement's text empty, so that every run is refused with an error naming it).
protocol FixedStatement: PostgresPreparedStatement where Row == PostgresRow {
    /// The statement with this instance's values (throwing as a value's encoding may).
    var query: PostgresQuery { get throws }
}

extension FixedStatement {
    func makeBindings() throws -> PostgresBindings {
        let query = try query
        guard query.sql == Self.sql else {
            throw PostgresFixedStatementError(name: Self.name)
        }
        return query.binds
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A fixed statement whose text came out different for some values: a defect in its query.
struct PostgresFixedStatementError: Error, CustomStringConvertible {
    let name: String
    var description: String { "the prepared statement \(name) was written with a text of its own" }
}

extension PostgresConnection {
    /// The rows of a fixed statement, prepared on this connection the first time it runs here.
    func rows<Statement: FixedStatement>(_ statement: Statement, logger: Logger) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }

    /// The first row of a fixed statement, or nil.
    func firstRow<Statement: FixedStatement>(_ statement: Statement, logger: Logger) async throws -> PostgresRow? {
        try await rows(statement, logger: logger).first
    }
}
