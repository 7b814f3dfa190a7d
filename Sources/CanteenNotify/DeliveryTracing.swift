import AsyncHTTPClient
import CanteenCore
import Foundation
import NIOHTTP1
import Tracing

/// The client span of a webhook attempt, by OpenTelemetry's HTTP client conventions: named
/// `POST`, with `http.request.method`, `server.address`, `server.port`, `url.full` (without its
/// query, which may hold a secret) and `http.response.status_code`; the receiver gets its W3C
/// `traceparent`. Each attempt starts a trace of its own (the outbox keeps no request's context).
enum DeliveryTracing {
    /// Sends `request` with `send`, in a span when `traced`, adding the span's propagation headers first.
    static func send(
        _ request: HTTPClientRequest, job: WebhookJob, traced: Bool,
        _ send: (HTTPClientRequest) async throws -> HTTPClientResponse
    ) async throws -> HTTPClientResponse {
        guard traced else { return try await send(request) }
        var request = request
        let span = InstrumentationSystem.tracer.startSpan("POST", context: .topLevel, ofKind: .client)
        defer { span.end() }
        var components = URLComponents(string: job.url)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        span.updateAttributes { attributes in
            attributes["http.request.method"] = "POST"
            if let full = components?.string { attributes["url.full"] = full }
            if let host = components?.host { attributes["server.address"] = host }
            attributes["server.port"] = components?.port ?? (components?.scheme == "https" ? 443 : 80)
            attributes["canteen.webhook.id"] = job.endpointID
            attributes["canteen.event.id"] = job.event.id
            attributes["canteen.event.type"] = job.event.type.rawValue
            attributes["canteen.delivery.attempt"] = job.attempt
        }
        InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HTTPHeadersInjector())
        do {
            let response = try await send(request)
            let status = Int(response.status.code)
            span.attributes["http.response.status_code"] = status
            if status >= 400 {
                span.attributes["error.type"] = String(status)
                span.setStatus(SpanStatus(code: .error))
            }
            return response
        } catch {
            span.recordError(error)
            span.attributes["error.type"] = String(describing: type(of: error))
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}

/// Writes propagation headers into an outgoing request's headers.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
