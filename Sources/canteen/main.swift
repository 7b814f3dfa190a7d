import ArgumentParser

/// The `canteen` command line (minimal root on the `format` branch; the lead's root replaces it).
struct Canteen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canteen",
        abstract: "The Canteen café backend.",
        subcommands: [FormatCommand.self])
}

Canteen.main()
