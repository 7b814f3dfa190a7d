import Foundation
import GRDB

/// Records whose JSON columns (names, options, hours…) are decoded by one shared decoder.
/// GRDB's default builds a new `JSONDecoder` for every JSON column of every row, and a menu or
/// a feed page reads hundreds of rows.
protocol SharedJSONColumns: FetchableRecord {}

extension SharedJSONColumns {
    static func databaseJSONDecoder(for column: String) -> JSONDecoder { storedJSONDecoder }
}

/// GRDB's own settings for JSON columns, built once.
private let storedJSONDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dataDecodingStrategy = .base64
    decoder.dateDecodingStrategy = .millisecondsSince1970
    decoder.nonConformingFloatDecodingStrategy = .throw
    return decoder
}()
