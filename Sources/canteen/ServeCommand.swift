import ArgumentParser
import CanteenApp
import CanteenNotify
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
    @Option(help: "Seconds a webhook request may take.") var webhookTimeout: Double = 10
    @Option(help: "Seconds before a webhook's first retry; each later one doubles, with jitter.")
    var webhookFirstRetry: Double = 5
    @Option(help: "The longest wait between two webhook retries, in seconds.") var webhookMaxRetryDelay: Double = 3600
    @Option(help: "Seconds a failing webhook delivery is retried before it is marked failed.")
    var webhookRetryPeriod: Double = 86_400

    func validate() throws {
        for (name, value) in [("--webhook-timeout", webhookTimeout), ("--webhook-first-retry", webhookFirstRetry),
                              ("--webhook-max-retry-delay", webhookMaxRetryDelay),
                              ("--webhook-retry-period", webhookRetryPeriod)] {
            guard value > 0, value <= 30 * 86_400 else {
                throw ValidationError("\(name) is a number of seconds above 0 and at most 30 days")
            }
        }
    }

    func run() async throws {
        func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
        let configuration = AppConfiguration(
            host: host, port: port, dataDirectory: URL(fileURLWithPath: data.dataDirectory),
            menusDirectory: URL(fileURLWithPath: menus), localesDirectory: URL(fileURLWithPath: locales),
            logLevel: Logger.Level(rawValue: logLevel) ?? .info,
            webhooks: WebhookDeliverySettings(timeout: duration(webhookTimeout), firstRetryDelay: duration(webhookFirstRetry),
                                              maxRetryDelay: duration(webhookMaxRetryDelay),
                                              retryPeriod: duration(webhookRetryPeriod)))
        let app = try await buildApplication(configuration)
        FileHandle.standardOutput.write(Data("""
            Canteen: database in \(data.dataDirectory)/canteen.sqlite, API on http://\(host):\(port)
            Get a token (in another terminal, from this folder):
                "$(swift build --show-bin-path)/canteen" tokens create --role ops --data-dir \(data.dataDirectory)

            """.utf8))
        try await app.runService()
    }
}
