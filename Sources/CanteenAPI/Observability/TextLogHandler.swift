import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log lines as swift-log's `StreamLogHandler` writes them (`2026-11-28T09:30:00+0000 info
/// canteen: method=GET request_id=… [CanteenAPI] request`), the default format, at less cost per
/// line: the time is formatted once a second, not per line, and lines go to a `LogOutput`, which
/// writes many to one system call under load where `StreamLogHandler` flushes each.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    public var metadata: Logger.Metadata = [:] {
        didSet { prettyMetadata = Self.prettify(metadata) }
    }
    private var prettyMetadata: String?
    private let label: String
    private let output: LogOutput

    /// A handler writing to `output` (standard output unless a test gives its own).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, output: LogOutput = .standardOutput) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The handler's own metadata alone is joined once, when it is set.
        let pretty = event.metadata(over: metadata, provider: metadataProvider).flatMap(Self.prettify) ?? prettyMetadata
        var line = Self.clock.now()
        line += " \(event.level)"
        if !label.isEmpty { line += " \(label)" }
        line += ":"
        if let pretty { line += " \(pretty)" }
        line += " [\(event.source)] \(event.message)\n"
        output.write(line)
    }

    static func prettify(_ metadata: Logger.Metadata) -> String? {
        guard !metadata.isEmpty else { return nil }
        var text = ""
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            if !text.isEmpty { text += " " }
            text += key
            text += "="
            text += value.description
        }
        return text
    }

    /// The time of a line, local, to the second (`%Y-%m-%dT%H:%M:%S%z`), formatted once a second.
    static let clock = SecondClock()
}

/// The local time to the second as log lines show it, formatted again only when the second changes.
final class SecondClock: Sendable {
    private let last = Mutex<(second: Int, text: String)>((-1, ""))

    func now() -> String {
        var seconds = time(nil)
        if let cached = last.withLock({ $0.second == seconds ? $0.text : nil }) { return cached }
        var local = tm()
        localtime_r(&seconds, &local)
        var buffer = [Int8](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        let text = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        last.withLock { $0 = (seconds, text) }
        return text
    }
}
