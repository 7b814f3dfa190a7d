import HTTPTypes
import Hummingbird

extension Response {
    /// Calls `done` once this answer's body is on its way: at once for a body in hand (written in
    /// one go) and for a HEAD's (Hummingbird never writes it), else when a streamed body's writer
    /// ends. What `APIMiddleware` measures and `RequestTracing`'s span covers.
    mutating func whenBodyWritten(for method: HTTPRequest.Method, _ done: @escaping @Sendable () -> Void) {
        guard body.contentLength == nil, method != .head else { return done() }
        let streamed = body
        body = ResponseBody { writer in
            defer { done() }
            try await streamed.write(writer)
        }
    }
}
