import ArgumentParser

/// The minimal root on the `beacons` branch; the lead's root registers `BeaconsCommand` the same way.
struct Canteen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canteen",
        abstract: "Canteen: cafés, menus, orders and iBeacon ranging.",
        subcommands: [BeaconsCommand.self])
}

/// Runs the root command asynchronously (in top-level code the synchronous `main()` would be chosen).
func runCanteen() async {
    await Canteen.main()
}

await runCanteen()
