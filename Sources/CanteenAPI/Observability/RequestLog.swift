import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Request ids: the client's `X-Request-ID` when it is sane, else a new one; bound to the
/// request's task so that every log line written while it is handled carries it.
public enum RequestLog {
    /// `X-Request-ID`, read from the request and written on the response.
    public static let header = HTTPField.Name("X-Request-ID")!
    /// The metadata key of the id in log lines.
    public static let metadataKey = "request_id"

    /// The id of the request this task is handling, if any.
    @TaskLocal public static var currentID: String?

    /// Adds `request_id` to every log line written inside a request's task, whatever logger
    /// writes it: give it to `LoggingSystem.bootstrap` or to a `Logger`.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = currentID else { return [:] }
        return [metadataKey: .string(id)]
    }

    /// The client's id when it is 1–128 of `A-Z a-z 0-9 - _ . : @ / + =` (a UUID, a ULID, a
    /// trace id), else nil: anything else could forge log lines or carry a secret around.
    public static func accepted(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count) else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                || "-_.:@/+=".utf8.contains(byte)
        }
        return allowed ? value : nil
    }

    /// A new id: 16 random URL-safe characters.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_".utf8)
        return String(decoding: (0..<16).map { _ in alphabet[Int(generator.next() % 64)] }, as: UTF8.self)
    }
}

/// The outermost middleware: gives the request its id (`X-Request-ID` on the answer and in
/// every log line), binds the application's metrics factory to the request's task, and writes
/// one info line per request with method, route pattern, status and duration. Never headers,
/// query strings or bodies: no token or secret reaches the log.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CanteenRequestContext

    let metrics: CanteenMetrics

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestLog.accepted(request.headers[RequestLog.header]) ?? RequestLog.make()
        var context = context
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: RequestLog.metadataKey] = .string(id)
        let logger = context.logger
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await RequestLog.$currentID.withValue(id) {
                try await withLogger(logger) { _ in
                    try await withMetricsFactory(metrics.factory) { try await next(request, context) }
                }
            }
        } catch {
            log(request, context, status: "failed", start: start, logger: logger)
            throw error
        }
        var answered = response
        answered.headers[RequestLog.header] = id
        // Hummingbird's metrics of this request are recorded when its body has been written,
        // after this returns: that write runs with this application's metrics factory too.
        let body = answered.body
        let factory = metrics.factory
        answered.body = ResponseBody(contentLength: body.contentLength) { writer in
            // The writer is used by this one task only, as Hummingbird hands it over.
            nonisolated(unsafe) let target = writer
            try await withMetricsFactory(factory) {
                let copy = body
                try await copy.write(target)
            }
        }
        log(request, context, status: String(response.status.code), start: start, logger: logger)
        return answered
    }

    private func log(_ request: Request, _ context: Context, status: String, start: ContinuousClock.Instant,
                     logger: Logger) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "-"),
            "status": .string(status),
            "duration_ms": .string(String(format: "%.2f", milliseconds)),
        ])
    }
}
