import Logging
import Tracing

/// `trace_id` and `span_id` of the span a log line is written in, while tracing: every line of a
/// traced request can be found from its trace. Read through the propagator the tracer was
/// bootstrapped with (W3C `traceparent`), so this module needs no tracer of its own.
public enum TraceLog {
    public static let metadataProvider = Logger.MetadataProvider {
        guard let context = ServiceContext.current else { return [:] }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        let parts = carrier["traceparent"]?.split(separator: "-") ?? []
        guard parts.count == 4 else { return [:] }
        return ["trace_id": .string(String(parts[1])), "span_id": .string(String(parts[2]))]
    }

    /// `RequestLog`'s metadata and, when `tracing`, this one's.
    public static func provider(tracing: Bool) -> Logger.MetadataProvider {
        guard tracing else { return RequestLog.metadataProvider }
        return .multiplex([RequestLog.metadataProvider, metadataProvider]) ?? RequestLog.metadataProvider
    }
}

/// Collects propagation fields into a dictionary.
private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
