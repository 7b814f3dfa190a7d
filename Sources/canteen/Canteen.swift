import ArgumentParser

/// The `canteen` command line: thin commands over the libraries.
@main
struct Canteen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canteen",
        abstract: "Canteen: the beacon-aware cafeteria ordering backend.",
        subcommands: [ServeCommand.self, TokensCommand.self, MenusCommand.self, PrefsCommand.self, FormatCommand.self,
                      BeaconsCommand.self])
}

/// `--data-dir`, shared by every command that opens the database.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder of the embedded SQLite database.")
    var dataDirectory: String = "./.canteen"
}
