import ArgumentParser
import CanteenApp
import Foundation
import Hummingbird
import Logging

/// `canteen serve`: the HTTP API on the embedded database.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the HTTP API (imports Menus/ into an empty database).")

    @OptionGroup var data: DataOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "Café files imported when the database has no café yet.") var menus = "Menus"
    @Option(help: "UI strings, one JSON file per language.") var locales = "Locales"
    @Option(help: "Log level (trace, debug, info, notice, warning, error).") var logLevel = "info"

    func run() async throws {
        var configuration = AppConfiguration(
            host: host, port: port, dataDirectory: URL(fileURLWithPath: data.dataDirectory),
            menusDirectory: URL(fileURLWithPath: menus), localesDirectory: URL(fileURLWithPath: locales),
            logLevel: Logger.Level(rawValue: logLevel) ?? .info)
        let location = try reportingErrors { try data.location() }
        let storage: String
        let tokenOption: String
        switch location {
        case .postgres(let url, _):
            configuration.database = url
            storage = "PostgreSQL database \(url)"
            tokenOption = "--database '\(url)'"
        case .sqlite:
            storage = "database in \(data.dataDirectory)/canteen.sqlite"
            tokenOption = "--data-dir \(data.dataDirectory)"
        }
        let app = try await buildApplication(configuration)
        FileHandle.standardOutput.write(Data("""
            Canteen: \(storage), API on http://\(host):\(port)
            Get a token (in another terminal, from this folder):
                "$(swift build --show-bin-path)/canteen" tokens create --role ops \(tokenOption)

            """.utf8))
        try await app.runService()
    }
}
