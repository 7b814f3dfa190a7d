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
        subcommands: [ServeCommand.self, TokensCommand.self, MenusCommand.self, PrefsCommand.self, FormatCommand.self,
                      BeaconsCommand.self, NFCCommand.self])
}

/// `--data-dir`, shared by every command that opens the database.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder of the embedded SQLite database.")
    var dataDirectory: String = "./.canteen"
}

extension DataOptions {
    /// The stores on the database in `--data-dir` (created and migrated when missing).
    func openStores() throws -> CanteenStores {
        try CanteenStores.open(dataDirectory: URL(fileURLWithPath: dataDirectory))
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
