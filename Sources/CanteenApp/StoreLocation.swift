import CanteenCore
import CanteenPostgres
import Foundation

/// Which database the stores open: the embedded SQLite file of a data folder (the default, one
/// server), or a PostgreSQL database that several servers share.
public enum StoreLocation: Sendable, CustomStringConvertible {
    /// `canteen.sqlite` in this folder; nil keeps the database in memory (tests).
    case sqlite(directory: URL?)
    /// A PostgreSQL database; `dataDirectory` is only where an existing `card.key` may be read.
    case postgres(PostgresURL, dataDirectory: URL?)

    /// `--database URL` (or `CANTEEN_DATABASE_URL`) when given, else SQLite in `--data-dir`.
    public static func choose(
        database: String?, dataDirectory: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> StoreLocation {
        let directory = URL(fileURLWithPath: dataDirectory)
        guard let text = database ?? environment["CANTEEN_DATABASE_URL"], !text.isEmpty else {
            return .sqlite(directory: directory)
        }
        let field = database != nil ? "--database" : "CANTEEN_DATABASE_URL"
        return .postgres(try PostgresURL(text, field: field), dataDirectory: directory)
    }

    public var description: String {
        switch self {
        case .sqlite(let directory?): "SQLite in \(directory.relativePath)/canteen.sqlite"
        case .sqlite(nil): "SQLite in memory"
        case .postgres(let url, _): "PostgreSQL at \(url)"
        }
    }
}
