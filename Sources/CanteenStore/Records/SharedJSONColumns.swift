import Foundation
import GRDB
import Synchronization

/// Records whose JSON columns (names, options, hours…) are decoded by shared decoders, one per
/// column name. GRDB's default builds a new `JSONDecoder` for every JSON column of every row,
/// and a menu or a feed page reads hundreds of rows. A column that does not decode says which
/// it is (`StoredJSONColumnError`), so the store's error can name it.
protocol SharedJSONColumns: FetchableRecord {}

extension SharedJSONColumns {
    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        if let decoder = storedJSONDecoders.withLock({ $0[column] }) { return decoder }
        let decoder = ColumnJSONDecoder(column: column)
        storedJSONDecoders.withLock { $0[column] = decoder }
        return decoder
    }
}

/// A JSON column that does not decode as its record's property.
struct StoredJSONColumnError: Error, CustomStringConvertible {
    let column: String
    let underlying: any Error

    var description: String {
        let reason =
            (underlying as? DecodingError).flatMap { error -> String? in
                switch error {
                case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                    .keyNotFound(_, let context):
                    context.debugDescription
                @unknown default:
                    nil
                }
            } ?? "\(underlying)"
        return "column \(column) does not decode: \(reason)"
    }
}

/// GRDB's own settings for JSON columns, one decoder per column name.
private final class ColumnJSONDecoder: JSONDecoder, @unchecked Sendable {
    let column: String

    init(column: String) {
        self.column = column
        super.init()
        dataDecodingStrategy = .base64
        dateDecodingStrategy = .millisecondsSince1970
        nonConformingFloatDecodingStrategy = .throw
    }

    override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try super.decode(type, from: data)
        } catch {
            throw StoredJSONColumnError(column: column, underlying: error)
        }
    }
}

private let storedJSONDecoders = Mutex<[String: JSONDecoder]>([:])
