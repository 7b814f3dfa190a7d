import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// Reading rows the way the SQLite stores do: a value that does not decode (a wrong type, JSON
/// that does not parse, a code this version does not know) is `stored_data_invalid` naming the
/// table, the row and the column, never a silent default.
struct StoredColumns {
    let table: String
    let id: String

    /// The row's columns as `types`; a column that does not decode is an error naming it.
    static func decode<each Column: PostgresDecodable>(
        _ row: PostgresRow, table: String, _ types: (repeat each Column).Type
    ) throws -> (repeat each Column) {
        do {
            return try row.decode(types)
        } catch let error as PostgresDecodingError {
            let id = (try? row.decode(String.self)) ?? "?"
            throw StoredRow.invalid(
                table: table, id: id,
                "column \(error.columnName) does not hold a \(error.targetType)")
        }
    }

    /// A JSON column (text, as GRDB writes it) as `T`.
    func json<T: Decodable>(_ text: String, _ column: String, as type: T.Type = T.self) throws -> T {
        do {
            return try StoredJSON.decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw StoredRow.invalid(table: table, id: id, "column \(column) is not the JSON of a \(T.self)")
        }
    }
}

/// The JSON of JSON columns, byte for byte as GRDB writes them (sorted keys, base64 data,
/// dates in milliseconds), so that a copied SQLite database and a PostgreSQL one hold the same text.
enum StoredJSON {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }()

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension PostgresConnection {
    /// Every row of `query`.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }

    /// The first row of `query`, or nil.
    func firstRow(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRow? {
        try await self.query(query, logger: logger).collect().first
    }

    /// The first column of the first row of `query` as `T`; nil when there is no row or it is NULL.
    func scalar<T: PostgresDecodable>(
        _ query: PostgresQuery, table: String, as type: T.Type,
        logger: Logger
    ) async throws -> T? where T._DecodableType == T {
        guard let row = try await firstRow(query, logger: logger) else { return nil }
        do {
            return try row.decode(Optional<T>.self)
        } catch let error as PostgresDecodingError {
            throw StoredRow.invalid(
                table: table, id: "?", "column \(error.columnName) does not hold a \(error.targetType)")
        }
    }

    /// Runs `query` for its effect (use `RETURNING` to learn what it touched).
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }
}
