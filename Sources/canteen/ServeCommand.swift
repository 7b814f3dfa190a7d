import ArgumentParser
import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenNotify
import Foundation
import Hummingbird
import Logging

/// `canteen serve`: the HTTP API on the embedded database.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the HTTP API (imports Menus/ into an empty database).")

    @OptionGroup var data: DataOptions
    @OptionGroup(title: "Signing people in") var identity: IdentityOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "Café files imported when the database has no café yet.") var menus = "Menus"
    @Option(help: "UI strings, one JSON file per language.") var locales = "Locales"
    @Option(help: "Log level (trace, debug, info, notice, warning, error).") var logLevel = "info"
    @Option(help: "Log lines as text or json, one object a line (also CANTEEN_LOG_FORMAT; default text).")
    var logFormat: LogFormat?
    @Option(
        help: ArgumentHelp(
            "Export traces over OTLP/HTTP to this collector (also OTEL_EXPORTER_OTLP_ENDPOINT; "
                + "the service's name from OTEL_SERVICE_NAME).", valueName: "http://HOST:4318"))
    var otelEndpoint: String?
    @Option(help: "Seconds a new connection may take to send its first complete request head before it is closed.")
    var headerTimeout = 10.0
    @Option(
        help:
            "Seconds a connection may go without a complete request part, while no request is being answered, before it is closed."
    )
    var idleTimeout = 60.0
    @Option(help: "Seconds a webhook request may take.") var webhookTimeout: Double = 10
    @Option(help: "Seconds before a webhook's first retry; each later one doubles, with jitter.")
    var webhookFirstRetry: Double = 5
    @Option(help: "The longest wait between two webhook retries, in seconds.") var webhookMaxRetryDelay: Double = 3600
    @Option(help: "Seconds a failing webhook delivery is retried before it is marked failed.")
    var webhookRetryPeriod: Double = 86_400
    @Option(
        help: ArgumentHelp(
            "An internal range webhooks may be sent to (loopback, private, link-local, …), "
                + "e.g. 10.20.0.0/16; repeat it for more. By default only public addresses are.",
            valueName: "CIDR"))
    var webhookAllowPrivate: [String] = []
    @Flag(help: "Answer GET /metrics without a token (by default it needs an ops or metrics token).")
    var metricsPublic = false
    @Option(
        help: ArgumentHelp(
            "On the first start (an empty database filled with the sample cafés): make tokens for "
                + "the console and one café's screens and print links holding them: auto (when "
                + "standard output is a terminal, never into a log), always, never.",
            valueName: "when"))
    var welcome: Welcome = .auto

    /// When the first minute's links (which hold secrets) are printed.
    enum Welcome: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    func validate() throws {
        guard headerTimeout > 0, headerTimeout <= 3600 else {
            throw ValidationError("--header-timeout is 0 to 3600 seconds")
        }
        guard idleTimeout > 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout is 0 to 86400 seconds")
        }
        for (name, value) in [
            ("--webhook-timeout", webhookTimeout), ("--webhook-first-retry", webhookFirstRetry),
            ("--webhook-max-retry-delay", webhookMaxRetryDelay),
            ("--webhook-retry-period", webhookRetryPeriod),
        ] {
            guard value > 0, value <= 30 * 86_400 else {
                throw ValidationError("\(name) is a number of seconds above 0 and at most 30 days")
            }
        }
        for range in webhookAllowPrivate {
            do {
                _ = try IPAddressRange(range)
            } catch {
                throw ValidationError("--webhook-allow-private: \(error)")
            }
        }
    }

    func run() async throws {
        func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
        let observability = try ServeObservability.bootstrap(
            format: logFormat, otelEndpoint: otelEndpoint,
            logLevel: Logger.Level(rawValue: logLevel) ?? .info)
        let allowedRanges = webhookAllowPrivate.compactMap { try? IPAddressRange($0) }  // checked in validate()
        var configuration = AppConfiguration(
            host: host, port: port, dataDirectory: URL(fileURLWithPath: data.dataDirectory),
            menusDirectory: InstalledFiles.folder(menus, default: "Menus"),
            localesDirectory: InstalledFiles.folder(locales, default: "Locales"),
            logLevel: Logger.Level(rawValue: logLevel) ?? .info,
            headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
            webhooks: WebhookDeliverySettings(
                timeout: duration(webhookTimeout), firstRetryDelay: duration(webhookFirstRetry),
                maxRetryDelay: duration(webhookMaxRetryDelay),
                retryPeriod: duration(webhookRetryPeriod),
                addressPolicy: WebhookAddressPolicy(allowing: allowedRanges)))
        configuration.tracing = observability.tracing
        configuration.metricsArePublic = metricsPublic
        configuration.identity = try observability.reportingFailures {
            try identity.settings(logger: Logger(label: "canteen.oidc"))
        }
        if welcome == .always || (welcome == .auto && isatty(STDOUT_FILENO) == 1) {
            configuration.welcome = { text in FileHandle.standardOutput.write(Data(text.utf8)) }
        }
        let location = try observability.reportingFailures { try data.location() }
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
        var built: (any ApplicationProtocol)?
        try await observability.reportingFailures { built = try await buildApplication(configuration) }
        guard let app = built else { return }
        observability.announce(
            storage: storage, url: "http://\(host):\(port)",
            tokenCommand: InstalledFiles.command("tokens create --role ops \(tokenOption)"))
        defer { LogOutput.standardOutput.flush() }  // the last lines, written by another thread, before exit
        try await observability.run(app)
    }
}
