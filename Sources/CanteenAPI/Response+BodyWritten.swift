import HTTPTypes
import Hummingbird

extension Response {
    /// Calls `done` once this answer's body is on its way: at once for a body in hand (written in
    /// one go) and for a HEAD's (Hummingbird never writes it), else when a streamed body's writer
    /// ends. What `APIMiddleware` measures and `RequestTracing`'s span covers.
    mutating func whenBodyWritten(for method: HTTPRequest.Method, _ done: @escaping @Sendable () -> Void) {
        guard !isWrittenAtOnce(for: method) else { return done() }
        let streamed = body
        body = ResponseBody { writer in
            defer { done() }
            try await streamed.write(writer)
        }
    }

    /// Whether the body is on its way as soon as the answer is returned: a body in hand, or a
    /// HEAD's. A caller that measures such answers at once makes no closure for `whenBodyWritten`.
    func isWrittenAtOnce(for method: HTTPRequest.Method) -> Bool {
        body.contentLength != nil || method == .head
    }
}
