import Logging

extension LogEvent {
    /// The metadata a line shows, as swift-log's `StreamLogHandler` merges it: the handler's own,
    /// then the provider's (`request_id`, `trace_id`), then the line's, then its error
    /// (`error.message`, `error.type`); nil when the line and the provider add nothing.
    func metadata(over own: Logger.Metadata, provider: Logger.MetadataProvider?) -> Logger.Metadata? {
        let provided = provider?.get() ?? [:]
        guard !provided.isEmpty || !(metadata ?? [:]).isEmpty || error != nil else { return nil }
        var merged = own
        merged.merge(provided) { _, new in new }
        if let explicit = metadata { merged.merge(explicit) { _, new in new } }
        if let error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }
}
