import Hummingbird

/// Registers routes on the router and remembers each (method, path) pair, so the API's
/// description (`openapi.yaml`) can be checked against what is really served.
public final class RouteTable {
    /// One served route, path in Hummingbird's `:parameter` form.
    public struct Entry: Hashable, Sendable {
        public let method: String
        public let path: String
    }

    public let router: Router<CanteenRequestContext>
    public private(set) var entries: [Entry] = []
    let methods: RouteMethods

    init(router: Router<CanteenRequestContext>, methods: RouteMethods) {
        self.router = router
        self.methods = methods
    }

    func on(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @escaping @Sendable (Request, CanteenRequestContext) async throws -> Response
    ) {
        entries.append(Entry(method: method.rawValue, path: path))
        methods.add(method: method, path: path)
        router.on(RouterPath(path), method: method, use: handler)
    }

    /// The routes in OpenAPI form: `GET /v1/cafes/{cafeId}`.
    public var openAPIOperations: Set<String> {
        Set(
            entries.map { entry in
                let path = entry.path.split(separator: "/", omittingEmptySubsequences: false).map { part in
                    part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                }.joined(separator: "/")
                return "\(entry.method) \(path)"
            })
    }
}
