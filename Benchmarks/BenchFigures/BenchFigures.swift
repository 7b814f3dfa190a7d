import Foundation

/// The machine-readable side of `make bench`: each benchmark records its figures as JSON
/// lines in the file `BENCH_FIGURES` names (nothing when it is unset), and
/// `scripts/bench-report.py` turns one run's lines into `bench/results.json` and the table.
/// Adding a figure is one `BenchFigures.record(...)` line (or one `figure` line in a script).
public enum BenchFigures {
    /// Which way is better.
    public enum Better: String, Sendable {
        case higher, lower
    }

    /// Appends `{"id", "value", "unit", "better", "title", "reference"}`. `reference` names the
    /// figure of the same run it is measured against (its ceiling: GET /healthz for HTTP, raw
    /// SQLite commits for durable writes, Foundation's own call for formatting, beacontools).
    public static func record(
        _ id: String, _ value: Double, unit: String, better: Better = .higher, title: String,
        reference: String? = nil
    ) {
        guard let path = ProcessInfo.processInfo.environment["BENCH_FIGURES"], !path.isEmpty, value.isFinite else {
            return
        }
        var object: [String: Any] = ["id": id, "value": value, "unit": unit, "better": better.rawValue, "title": title]
        if let reference { object["reference"] = reference }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(UInt8(ascii: "\n"))
        guard
            let handle = FileHandle(forWritingAtPath: path)
                ?? {
                    FileManager.default.createFile(atPath: path, contents: nil)
                    return FileHandle(forWritingAtPath: path)
                }()
        else { return }
        handle.seekToEndOfFile()
        handle.write(line)
        handle.closeFile()
    }
}
