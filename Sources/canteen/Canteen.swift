import ArgumentParser
import CanteenApp
import CanteenCore
import Foundation

/// The `canteen` command line: thin commands over the libraries.
@main
struct Canteen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canteen",
        abstract: "Canteen: the beacon-aware cafeteria ordering backend.",
        subcommands: [
            ServeCommand.self, TokensCommand.self, MenusCommand.self, PrefsCommand.self, FormatCommand.self,
            BeaconsCommand.self, NFCCommand.self, DatabaseCommand.self,
            KitchenCommand.self,
        ])
}

/// `--data-dir` and `--database`, shared by every command that opens the stores.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder of the embedded SQLite database.")
    var dataDirectory: String = "./.canteen"

    @Option(
        name: .customLong("database"),
        help: "A PostgreSQL database instead (postgres://USER[:PASSWORD]@HOST[:PORT]/DB); also CANTEEN_DATABASE_URL.")
    var database: String?
}

extension DataOptions {
    /// `--database` (or `CANTEEN_DATABASE_URL`) when given, else SQLite in `--data-dir`.
    func location() throws -> StoreLocation {
        try StoreLocation.choose(database: database, dataDirectory: dataDirectory)
    }

    /// Runs `body` on the stores (created and migrated when missing; a PostgreSQL pool runs
    /// meanwhile), reporting domain errors as `reportingErrors` does.
    func withStores(_ body: (CanteenStores) async throws -> Void) async throws {
        try await reportingErrors {
            try await CanteenStores.open(location()).withDatabase(body)
        }
    }
}

/// Runs a command's work; a domain error (unknown token, bad value, café not found) is printed on
/// stderr as `error: field: message [code]` and the command fails, without the usage text that
/// ArgumentParser prints for bad arguments.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CanteenError {
        FileHandle.standardError.write(Data("error: \(error) [\(error.code)]\n".utf8))
        throw ExitCode.failure
    }
}

/// `reportingErrors` for work that returns a value and does not wait.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CanteenError {
        FileHandle.standardError.write(Data("error: \(error) [\(error.code)]\n".utf8))
        throw ExitCode.failure
    }
}
