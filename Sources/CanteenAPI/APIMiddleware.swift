import CanteenCore
import CoreMetrics
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
/// through with its own copy of the request's context, so one costs fewer instructions per
/// request and per woken display (measured with `scripts/count-instructions.sh`: the figures
/// are in docs/benchmarks.md, "Figures that were in doc comments").
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

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard Self.opensStream(route: context.endpointPath) else { return await answer(request, context, next) }
        // An event stream's request is answered in a child task. A connection's task keeps the
        // most stack it ever used for as long as the connection stays open, and a stream stays
        // open for hours: its task then keeps only Hummingbird's frames and the stream's loop,
        // not this middleware's, the authentication's and the route's (3.7 KB of each idle
        // stream's 26 KB; docs/benchmarks.md). The child's stack is freed when it returns the
        // answer, whose body the connection's task then writes.
        return await withoutActuallyEscaping(next) { next in
            // `next` is called once, by the child, while this task waits for it.
            let route = UncheckedSendable(next)
            async let answered = answer(request, context, route.value)
            return await answered
        }
    }

    /// Whether the route answers with an event stream (`…/events`): the ticket and order event
    /// streams. (The last byte first: most requests are told apart without comparing strings.)
    static func opensStream(route: String?) -> Bool {
        guard let route, route.utf8.last == UInt8(ascii: "s") else { return false }
        return route.hasSuffix("/events")
    }

    /// Not inlined into `handle`: a stream's connection task runs `handle` while its child
    /// answers, and would keep this frame too (about 1 KB more per idle stream, for an async
    /// call fewer per request).
    @inline(never)
    private func answer(
        _ request: Request, _ context: Context,
        _ next: (Request, Context) async throws -> Response
    ) async -> Response {
        let started = started(request)
        // Lines written inside get `request_id` from the task-local (`metadataProvider`): the
        // context's logger is not copied and changed for every request.
        let response = await RequestLog.$currentID.withValue(started.id) {
            do {
                return try await next(request, try await authentication.verified(request, context))
            } catch {
                return await errors.response(for: error, to: request, context: context)
            }
        }
        return finished(response, request, context, started)
    }

    /// When and how a request began, and its id.
    struct Started {
        let id: String
        let start: ContinuousClock.Instant
        let method: HTTPRequest.Method
        /// Its method's count of requests in progress, until it is answered.
        let active: CoreMetrics.Meter
    }

    // `started` and `finished` are not inlined into `handle`: a synchronous function's locals live
    // on the thread's stack, while `handle`'s frame is in the task's memory, which a connection
    // keeps at its largest for as long as it stays open (an idle stream, a keep-alive).

    @inline(never)
    private func started(_ request: Request) -> Started {
        let id = RequestLog.accepted(request.headers.value(of: RequestLog.header)) ?? RequestLog.make()
        let active = metrics.requestStarted(method: request.method)
        return Started(id: id, start: .now, method: request.method, active: active)
    }

    @inline(never)
    private func finished(
        _ response: consuming Response, _ request: Request, _ context: Context, _ started: Started
    ) -> Response {
        var response = response
        // No browser guesses another type for an answer (a JSON error echoing `<script>` stays JSON).
        if !response.headers.contains(.xContentTypeOptions) { response.headers.append(Self.noSniff) }
        response.headers.append(HTTPField(name: RequestLog.header, value: started.id))  // no route sets it
        let route = context.endpointPath ?? "Unknown"
        let status = response.status
        let (method, start, active) = (started.method, started.start, started.active)
        let metrics = metrics  // not the whole middleware, into a streamed body's closure
        @Sendable func answered() {
            metrics.requestAnswered(route: route, method: method, status: status, since: start, active: active)
        }
        if response.isWrittenAtOnce(for: method) {
            answered()
        } else {
            response.whenBodyWritten(for: method, answered)
        }
        log(request, context, id: started.id, status: status, start: start)
        return response
    }

    private func log(
        _ request: Request, _ context: Context, id: String, status: HTTPResponse.Status,
        start: ContinuousClock.Instant
    ) {
        guard context.logger.logLevel <= .info else { return }
        let elapsed = (ContinuousClock.now - start).components
        var metadata: Logger.Metadata = [
            RequestLog.metadataKey: .string(id),
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "-"),
            "status": .string(String(status.code)),
            "duration_ms": .string(Self.milliseconds(seconds: elapsed.seconds, attoseconds: elapsed.attoseconds)),
        ]
        // Only where ops chose it: a client's address is personal data.
        if identity.logClientAddress,
            let client = identity.clientAddresses.client(peer: context.remoteAddress, headers: request.headers)
        {
            metadata["client"] = .string(client.description)
        }
        context.logger.info("request", metadata: metadata)
    }

    /// Milliseconds to two decimals, rounded (`12.35`): integer arithmetic, where Foundation's
    /// `String(format:)` cost a twentieth of a logged request's time.
    static func milliseconds(seconds: Int64, attoseconds: Int64) -> String {
        let hundredths = max(0, seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// A value that crosses into a child task which alone uses it while its parent waits: what
/// structured concurrency guarantees, and what the compiler cannot see for a closure.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
