import CanteenCore
import CanteenJSON
import Foundation
import Logging

/// Writes every log line as one JSON object (`--log-format json`), for journald and log
/// shippers: `time` (RFC 3339, UTC, microseconds), `level`, `message`, `logger` (the label), then
/// the metadata as members of their own (`request_id`, `trace_id` and `span_id` while tracing,
/// `method`, `status`, …), and `source`. A nested value is written as JSON; a key that would
/// clash with one of the fixed members is written with a `meta.` prefix.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: LogOutput

    /// A handler writing to `output` (standard output unless a test gives its own).
    public init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        output: LogOutput = .standardOutput
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = event.metadata(over: metadata, provider: metadataProvider) ?? metadata
        output.write(
            Self.line(
                time: Date(), level: event.level, message: "\(event.message)", label: label,
                metadata: merged, source: event.source))
    }

    /// One log line: the JSON object and a newline.
    public static func line(
        time: Date, level: Logger.Level, message: String, label: String,
        metadata: Logger.Metadata, source: String
    ) -> String {
        var text = "{\"time\":\"\(RFC3339.utcMicroseconds(time))\",\"level\":\"\(level.rawValue)\",\"message\":"
        append(message, to: &text)
        text += ",\"logger\":"
        append(label, to: &text)
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            text += ","
            append(fixedKeys.contains(key) ? "meta." + key : key, to: &text)
            text += ":"
            append(value, to: &text)
        }
        text += ",\"source\":"
        append(source, to: &text)
        return text + "}\n"
    }

    static let fixedKeys: Set<String> = ["time", "level", "message", "logger", "source"]

    private static func append(_ value: Logger.MetadataValue, to text: inout String) {
        switch value {
        case .string(let string):
            append(string, to: &text)
        case .stringConvertible(let convertible):
            append(convertible.description, to: &text)
        case .array(let values):
            text += "["
            for (index, element) in values.enumerated() {
                if index > 0 { text += "," }
                append(element, to: &text)
            }
            text += "]"
        case .dictionary(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                append(key, to: &text)
                text += ":"
                if let member = members[key] { append(member, to: &text) }
            }
            text += "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as is (UTF-8).
    static func append(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                text += String(format: "\\u%04x", scalar.value)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
