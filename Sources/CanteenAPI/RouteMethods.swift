import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Which methods each path is served with, so a request for a served path with another method
/// is answered 405 with an `Allow` header instead of the router's 404.
///
/// The answer is the router's own: a second Hummingbird router holds the same routes (each
/// answering 204, with the same HEAD for every GET) and is asked with every method. A path is
/// resolved the way the real router resolves it, so `/v1/coupons/check` (a fixed segment) lists
/// only what that route serves, never the methods of `/v1/coupons/:couponId`.
final class RouteMethods: Sendable {
    private struct State {
        var routes: [(method: HTTPRequest.Method, path: String)] = []
        var probe: RouterResponder<ProbeContext>?
    }

    private let state = Mutex(State())

    func add(method: HTTPRequest.Method, path: String) {
        state.withLock { state in
            state.routes.append((method, path))
            state.probe = nil
        }
    }

    /// The methods served at `path` (the request's path, query included or not), sorted; empty
    /// when no route matches it.
    func methods(for path: String) async -> [String] {
        let (probe, candidates) = state.withLock { state in
            let probe = state.probe ?? Self.probe(state.routes)
            state.probe = probe
            var candidates = Set(state.routes.map(\.method))
            if candidates.contains(.get) { candidates.insert(.head) }
            return (probe, candidates)
        }
        var allowed: [String] = []
        for method in candidates {
            let request = Request(
                head: HTTPRequest(method: method, scheme: nil, authority: nil, path: path),
                body: RequestBody(buffer: ByteBuffer()))
            let context = ProbeContext(source: ProbeContext.Source(logger: Self.silent))
            if let response = try? await probe.respond(to: request, context: context), response.status == .noContent {
                allowed.append(method.rawValue)
            }
        }
        return allowed.sorted()
    }

    private static func probe(_ routes: [(method: HTTPRequest.Method, path: String)]) -> RouterResponder<ProbeContext> {
        let router = Router(context: ProbeContext.self, options: CanteenRouter.options)
        for route in routes {
            router.on(RouterPath(route.path), method: route.method) { _, _ in Response(status: .noContent) }
        }
        return router.buildResponder()
    }

    private static let silent = Logger(label: "canteen.route-methods", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The probe router's request context: nothing but Hummingbird's own.
    private struct ProbeContext: RequestContext {
        struct Source: RequestContextSource {
            let logger: Logger
        }

        var coreContext: CoreRequestContextStorage

        init(source: Source) {
            coreContext = CoreRequestContextStorage(source: source)
        }
    }
}
