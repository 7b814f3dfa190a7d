import CanteenCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The one middleware around every route. For each request, outermost first:
///
/// 1. **Request id, metrics, log line.** The request gets its id (`X-Request-ID` on the answer
///    and `request_id` in every log line), its HTTP metrics (`CanteenMetrics.requestAnswered`),
///    and one info line with method, route pattern, status and duration. Never headers, query
///    strings or bodies: no token or secret reaches the log.
/// 2. **Errors** become their JSON answers (`ErrorAnswers`): nothing escapes as a bare 500.
/// 3. **Authentication**: a bearer token, when sent, is verified (`Authentication`).
///
/// One middleware, not three: each middleware is an async frame that every answer returns
/// through with its own copy of the request's context. As three, a `GET /healthz` cost 236,509
/// instructions and each of 2,000 woken kitchen displays 95,356; as one, 228,675 and 94,637
/// (`scripts/count-instructions.sh`, docs/benchmarks.md).
///
/// An answer whose body is in hand (every one but a stream), and every answer to HEAD, is measured
/// when the route returns and passed on untouched, so Hummingbird writes its head, body and end in
/// one go; a stream (no length) is measured when its last byte is written.
struct APIMiddleware: RouterMiddleware {
    typealias Context = CanteenRequestContext

    let metrics: CanteenMetrics
    let errors: ErrorAnswers
    let authentication: Authentication
    /// Whether log lines carry the client's address (`--log-client-address`), and how it is found.
    let identity: IdentitySettings

    static let noSniff = HTTPField(name: .xContentTypeOptions, value: "nosniff")

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestLog.accepted(request.headers.value(of: RequestLog.header)) ?? RequestLog.make()
        let start = ContinuousClock.now
        let method = request.method
        metrics.requestStarted(method: method)
        // Lines written inside get `request_id` from the task-local (`metadataProvider`): the
        // context's logger is not copied and changed for every request.
        var response = await RequestLog.$currentID.withValue(id) {
            do {
                return try await next(request, try await authentication.verified(request, context))
            } catch {
                return await errors.response(for: error, to: request, context: context)
            }
        }
        // No browser guesses another type for an answer (a JSON error echoing `<script>` stays JSON).
        if !response.headers.contains(.xContentTypeOptions) { response.headers.append(Self.noSniff) }
        response.headers.append(HTTPField(name: RequestLog.header, value: id))  // no route sets it
        let route = context.endpointPath ?? "Unknown"
        let status = response.status
        // A HEAD's body is never written (Hummingbird drops it): it is measured now too.
        if response.body.contentLength != nil || method == .head {
            metrics.requestAnswered(route: route, method: method, status: status, since: start)
        } else {
            let body = response.body
            response.body = ResponseBody { [metrics] writer in
                defer { metrics.requestAnswered(route: route, method: method, status: status, since: start) }
                try await body.write(writer)
            }
        }
        log(request, context, id: id, status: status, start: start)
        return response
    }

    private func log(_ request: Request, _ context: Context, id: String, status: HTTPResponse.Status,
                     start: ContinuousClock.Instant) {
        guard context.logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            RequestLog.metadataKey: .string(id),
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "-"),
            "status": .string(String(status.code)),
            "duration_ms": .string(String(format: "%.2f", milliseconds)),
        ]
        // Only where ops chose it: a client's address is personal data.
        if identity.logClientAddress,
           let client = identity.clientAddresses.client(peer: context.remoteAddress, headers: request.headers) {
            metadata["client"] = .string(client.description)
        }
        context.logger.info("request", metadata: metadata)
    }
}
