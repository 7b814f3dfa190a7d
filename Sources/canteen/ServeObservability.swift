import ArgumentParser
import CanteenAPI
import CanteenCore
import Foundation
import Hummingbird
import Logging
import OTel
import ServiceLifecycle
import UnixSignals

/// How `canteen serve` writes its log lines.
enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// swift-log's lines, for people at a terminal.
    case text
    /// One JSON object a line, for journald and log shippers.
    case json
}

/// `canteen serve`'s logs and traces: the log format (`--log-format`, `CANTEEN_LOG_FORMAT`), and
/// the OTLP/HTTP trace exporter when an endpoint is given (`--otel-endpoint`,
/// `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`). Bootstrapped once, before anything logs.
struct ServeObservability {
    let format: LogFormat
    /// The exporter's service, run beside the server; nil when tracing is off.
    let tracer: (any Service)?
    let logger: Logger

    var tracing: Bool { tracer != nil }

    /// Reads the settings (flags over environment), bootstraps logging and, when asked, tracing.
    static func bootstrap(
        format flag: LogFormat?, otelEndpoint: String?, logLevel: Logger.Level,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws
        -> ServeObservability
    {
        let format =
            try flag ?? environment["CANTEEN_LOG_FORMAT"].flatMap { text in
                guard let format = LogFormat(rawValue: text.lowercased()) else {
                    throw ValidationError("CANTEEN_LOG_FORMAT is text or json, not '\(text)'")
                }
                return format
            } ?? .text
        var otelEnvironment = environment
        if let otelEndpoint {
            // The flag wins over the environment, the traces-only variable included (it would win over the base URL).
            otelEnvironment["OTEL_EXPORTER_OTLP_ENDPOINT"] = otelEndpoint
            otelEnvironment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = nil
        }
        let endpoint =
            otelEnvironment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? otelEnvironment["OTEL_EXPORTER_OTLP_ENDPOINT"]
        let tracing = !(endpoint ?? "").isEmpty
        if let endpoint, tracing {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme), url.host != nil else {
                throw ValidationError("the OTLP endpoint must be an http:// or https:// URL, not '\(endpoint)'")
            }
        }
        // Every log line written while a request is handled carries its request_id, and while
        // tracing its trace_id and span_id.
        let provider = TraceLog.provider(tracing: tracing)
        // The server-wide provider for every logger, also those made with one of their own.
        LoggingSystem.bootstrap(
            { label, _ in
                switch format {
                case .text: CanteenLogHandler(TextLogHandler(label: label, metadataProvider: provider))
                case .json: CanteenLogHandler(JSONLogHandler(label: label, metadataProvider: provider))
                }
            }, metadataProvider: provider)
        var logger = Logger(label: "canteen")
        logger.logLevel = logLevel
        guard tracing else { return ServeObservability(format: format, tracer: nil, logger: logger) }

        var configuration = OTel.Configuration.default
        configuration.serviceName = "canteen"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        // The exporter's own complaints (a collector that is down) go to Canteen's log, in its format.
        configuration.diagnosticLogger = .custom(Logger(label: "canteen.otel"))
        configuration.diagnosticLogLevel = .warning
        let service = try OTel.bootstrap(configuration: configuration, environment: otelEnvironment)
        return ServeObservability(format: format, tracer: service, logger: logger)
    }

    /// Runs the server, and the exporter beside it (it stops last, sending the last spans).
    func run(_ app: some ApplicationProtocol) async throws {
        guard let tracer else { return try await app.runService() }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: tracer), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }

    /// The lines a server writes once it is built: where its data is and how to get a token.
    func announce(storage: String, url: String, tokenCommand: String) {
        switch format {
        case .text:
            FileHandle.standardOutput.write(
                Data(
                    """
                    Canteen: \(storage), API on \(url)
                    Get a token (in another terminal\(InstalledFiles.isInstalled ? "" : ", from this folder")):
                        \(tokenCommand)

                    """.utf8))
        case .json:
            logger.notice("Canteen: \(storage), API on \(url)", metadata: ["storage": "\(storage)", "url": "\(url)"])
            logger.info("get a token with: \(tokenCommand)")
        }
    }

    /// `reportingErrors`, but in JSON a domain error is one log line too.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        guard format == .json else { return try await reportingErrors(body) }
        do {
            try await body()
        } catch let error as CanteenError {
            logger.error("\(error)", metadata: ["code": "\(error.code)"])
            throw ExitCode.failure
        }
    }

    /// `reportingFailures` for work that returns a value and does not wait.
    func reportingFailures<T>(_ body: () throws -> T) throws -> T {
        guard format == .json else { return try reportingErrors(body) }
        do {
            return try body()
        } catch let error as CanteenError {
            logger.error("\(error)", metadata: ["code": "\(error.code)"])
            throw ExitCode.failure
        }
    }
}
