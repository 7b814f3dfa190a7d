import CanteenCore
import CanteenPersistence
import GRDB

/// Fetching records so that a row that does not decode (JSON that does not parse, a value of
/// the wrong type) is `stored_data_invalid` naming its table, row and column, as every value
/// the stores check themselves is, never a bare decoding error.
extension QueryInterfaceRequest where RowDecoder: FetchableRecord & TableRecord {
    func fetchAllNamingRows(_ db: Database) throws -> [RowDecoder] {
        try asRequest(of: Row.self).fetchAll(db).map(RowDecoder.decodeNamingRow)
    }

    func fetchOneNamingRow(_ db: Database) throws -> RowDecoder? {
        try asRequest(of: Row.self).fetchOne(db).map(RowDecoder.decodeNamingRow)
    }
}

extension FetchableRecord where Self: TableRecord {
    static func decodeNamingRow(_ row: Row) throws -> Self {
        do {
            return try Self(row: row)
        } catch {
            throw StoredRow.invalid(table: databaseTableName, id: Self.rowID(row), Self.problem(error))
        }
    }

    /// The row's identity: its key columns that exist, joined (`testcafe/latte`).
    private static func rowID(_ row: Row) -> String {
        let parts = ["cafeId", "orderId", "itemId", "groupId", "id", "position", "key", "userId", "uuid"]
            .filter { row.hasColumn($0) }.map { column -> String in
                let value: DatabaseValue = row[column]
                return String.fromDatabaseValue(value) ?? value.description
            }
        return parts.isEmpty ? "?" : parts.joined(separator: "/")
    }

    private static func problem(_ error: any Error) -> String {
        if let error = error as? StoredJSONColumnError { return error.description }
        if let error = error as? DecodingError {
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                .keyNotFound(_, let context):
                let column = context.codingPath.first?.stringValue ?? "?"
                return "column \(column) does not decode: \(context.debugDescription)"
            @unknown default:
                return "\(error)"
            }
        }
        return "\(error)"
    }
}
