import Tracing

/// The spans of placing an order, when the request placing it is traced (it has a service
/// context); otherwise nothing is made, so tracing costs nothing while it is off. One value per
/// engine, naming it in `db.system.name`.
public struct PlacementTracing: Sendable {
    /// `sqlite` or `postgresql`.
    let engine: String

    /// The spans of the SQLite store.
    public static let sqlite = PlacementTracing(engine: "sqlite")
    /// The spans of the PostgreSQL store.
    public static let postgresql = PlacementTracing(engine: "postgresql")

    /// Runs `body` in the request's `placeOrder` span, handing it the span's context for the
    /// batch to link to; without a traced request, runs it with nil.
    public func placing<T: Sendable>(cafeID: String, _ body: (ServiceContext?) async throws -> T) async throws -> T {
        guard let context = ServiceContext.current else { return try await body(nil) }
        return try await withSpan("placeOrder", context: context, ofKind: .internal) { span in
            span.attributes["db.system.name"] = engine
            span.attributes["canteen.cafe.id"] = cafeID
            return try await body(span.context)
        }
    }

    /// Runs one group commit's transaction in a `group commit` span (a child of the leading
    /// request's span) linked to the `placeOrder` span of every request it carries.
    public func batch<T: Sendable>(of traces: [ServiceContext], orders: Int, _ body: () async -> T) async -> T {
        guard !traces.isEmpty else { return await body() }
        return await withSpan("group commit", ofKind: .internal) { span in
            span.attributes["db.system.name"] = engine
            span.attributes["canteen.batch.orders"] = orders
            for trace in traces { span.addLink(SpanLink(context: trace, attributes: [:])) }
            return await body()
        }
    }
}
