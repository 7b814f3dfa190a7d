import CanteenPostgres
import Foundation
import Logging

/// Everything `buildApplication` needs to know; tests pass their own.
public struct AppConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Where `canteen.sqlite` lives; nil keeps the database in memory (tests).
    public var dataDirectory: URL?
    /// A PostgreSQL database to use instead of SQLite (several servers share one).
    public var database: PostgresURL?
    /// Café files imported when the database has no café yet; nil imports nothing.
    public var menusDirectory: URL?
    /// The UI strings, one file per language.
    public var localesDirectory: URL
    public var logLevel: Logger.Level

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL? = URL(fileURLWithPath: ".canteen"),
                menusDirectory: URL? = URL(fileURLWithPath: "Menus"),
                localesDirectory: URL = URL(fileURLWithPath: "Locales"), logLevel: Logger.Level = .info) {
        self.localesDirectory = localesDirectory
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.menusDirectory = menusDirectory
        self.logLevel = logLevel
    }

    /// Where the stores live: `database` when set, else SQLite in `dataDirectory`.
    public var store: StoreLocation {
        database.map { .postgres($0, dataDirectory: dataDirectory) } ?? .sqlite(directory: dataDirectory)
    }
}
