import Foundation
import GRDB
import GRDBSQLite

/// A cached write statement of the order path, its values bound by position with SQLite's C API
/// and run to its end.
///
/// GRDB's `execute(arguments:)` boxes each value in an existential, copies it into
/// `StatementArguments` and binds it in a closure nested once per value; on the order path that
/// was about 50,000 instructions of an order's 1,000,000, all of it inside the single writer
/// (docs/benchmarks.md). Only for statements that return no rows, inside a transaction the
/// caller holds; every value must be bound, in the statement's order.
struct BoundStatement: ~Copyable {
    private let statement: Statement
    private let handle: OpaquePointer
    private var index: CInt = 0
    /// The first binding that failed (too big, out of range), thrown by `run`.
    private var failure: CInt = SQLITE_OK

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    mutating func bind(_ value: String) {
        index += 1
        var value = value
        let code = value.withUTF8 { bytes in
            // An empty buffer may have no address, and a null address would bind NULL.
            guard let address = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, copiedBySQLite)
            }
            return address.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, CInt(bytes.count), copiedBySQLite)
            }
        }
        note(code)
    }

    mutating func bind(_ value: String?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    mutating func bind(_ value: Int64) {
        index += 1
        note(sqlite3_bind_int64(handle, index, value))
    }

    mutating func bind(_ value: Int) { bind(Int64(value)) }

    mutating func bind(_ value: Int?) {
        guard let value else { return bindNull() }
        bind(Int64(value))
    }

    mutating func bind(_ value: Int64?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    mutating func bind(_ value: Data) {
        index += 1
        let code = value.withUnsafeBytes { bytes in
            // No address would bind NULL: an empty blob is a zero-length one.
            guard let address = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob(handle, index, address, CInt(bytes.count), copiedBySQLite)
        }
        note(code)
    }

    mutating func bindNull() {
        index += 1
        note(sqlite3_bind_null(handle, index))
    }

    /// Steps the statement to its end; a failure is thrown as GRDB's `DatabaseError`, as
    /// `execute(arguments:)` throws it.
    consuming func run() throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        guard failure == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: failure), message: "a value could not be bound",
                sql: statement.sql)
        }
        let expected = sqlite3_bind_parameter_count(handle)
        guard index == expected else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(index) values bound for \(expected) parameters",
                sql: statement.sql)
        }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else {
            let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    private mutating func note(_ code: CInt) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }
}

/// `sqlite3_bind_*` copies the bytes before returning (SQLite's `copiedBySQLite`).
private let copiedBySQLite = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
