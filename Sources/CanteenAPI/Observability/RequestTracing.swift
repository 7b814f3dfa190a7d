import HTTPTypes
import Hummingbird
import Tracing

/// A server span for every request, named and attributed by OpenTelemetry's HTTP semantic
/// conventions: `{method} {route}` (the route's pattern, never the raw path), with
/// `http.request.method`, `http.route`, `http.response.status_code`, `url.path`, `url.scheme`
/// and `network.protocol.version`. An incoming W3C `traceparent` is continued. The span ends when
/// the route has its answer, or, for a stream, when its last byte is written (as `APIMiddleware`
/// measures requests: a body in hand is passed on untouched and written in one go). Neither
/// headers nor the query string are recorded: they may carry secrets.
///
/// Added to the router only when tracing is on (`--otel-endpoint`): off, no request pays for it.
struct RequestTracing: RouterMiddleware {
    typealias Context = CanteenRequestContext

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let method = request.method.rawValue
        let span = InstrumentationSystem.tracer.startSpan(method, context: parent, ofKind: .server)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = method
            attributes["url.path"] = request.uri.path
            attributes["url.scheme"] = "http"
            attributes["network.protocol.version"] = "1.1"
            if let agent = request.headers[.userAgent] { attributes["user_agent.original"] = agent }
            if let address = context.remoteAddress {
                if let ip = address.ipAddress { attributes["client.address"] = ip }
                if let port = address.port { attributes["client.port"] = port }
            }
        }
        var response: Response
        do {
            response = try await ServiceContext.$current.withValue(span.context) {
                try await next(request, context)
            }
        } catch {
            // Not reached in practice (APIMiddleware answers every error); kept so no span leaks.
            name(span, method: method, route: context.endpointPath)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
        name(span, method: method, route: context.endpointPath)
        let status = Int(response.status.code)
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status
            if status >= 500 { attributes["error.type"] = String(status) }
        }
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        response.whenBodyWritten(for: request.method) { span.end() }
        return response
    }

    private func name(_ span: any Span, method: String, route: String?) {
        guard let route else { return }
        span.operationName = "\(method) \(route)"
        span.attributes["http.route"] = route
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`) from a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
