import Synchronization

/// Which methods each route pattern serves, so a request for a known path with another
/// method is answered 405 with an `Allow` header instead of the router's 404.
final class RouteMethods: Sendable {
    private let patterns = Mutex<[(segments: [Substring], method: String)]>([])

    func add(method: String, path: String) {
        patterns.withLock { $0.append((path.split(separator: "/"), method)) }
    }

    /// The methods served at `path` (`:parameter` segments match any segment), sorted.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/") } ?? []
        return patterns.withLock { patterns in
            Set(patterns.filter { pattern in
                pattern.segments.count == segments.count
                    && zip(pattern.segments, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
            }.map(\.method)).sorted()
        }
    }
}
