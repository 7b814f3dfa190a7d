import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where log lines go (text or JSON): each line whole, in order, lines of concurrent requests
/// never interleaved; and under load many lines to one `write(2)` instead of one each.
///
/// A line is appended to the pending bytes; the thread that finds no write in progress writes
/// what is pending (one call per round) until nothing is, while lines logged meanwhile are only
/// appended. A quiet server writes each line at once; a busy one makes a system call per batch.
/// Past `limit` pending bytes (the reader, journald or a pipe, has stalled), a logging thread
/// waits for the writer, as it would for a blocking write.
public final class LogOutput: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var writing = false
    }

    private let descriptor: Int32
    private let limit: Int
    private let state = Mutex(State())

    /// Lines written to this file descriptor.
    public init(descriptor: Int32, limit: Int = 1 << 20) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The process's standard output.
    public static let standardOutput = LogOutput(descriptor: 1)

    /// Writes `line` (its newline included), now or with the batch being written.
    public func write(_ line: String) {
        var line = line
        while true {
            let outcome: Bool? = state.withLock { state in
                guard state.pending.count < limit else { return nil }
                line.withUTF8 { state.pending.append(contentsOf: $0) }
                if state.writing { return false }
                state.writing = true
                return true
            }
            switch outcome {
            case nil: usleep(1000)  // the writer is behind: wait for it, as a blocking write would
            case false?: return
            case true?:
                drain()
                return
            }
        }
    }

    /// Returns once every line given so far is written (before the process exits).
    public func flush() {
        while state.withLock({ $0.writing || !$0.pending.isEmpty }) {
            if state.withLock({ state in
                guard !state.writing, !state.pending.isEmpty else { return false }
                state.writing = true
                return true
            }) {
                drain()
            } else {
                usleep(1000)
            }
        }
    }

    /// Writes what is pending until nothing is (lines appended meanwhile included).
    private func drain() {
        var batch: [UInt8] = []
        while true {
            let more = state.withLock { state in
                if state.pending.isEmpty {
                    state.writing = false
                    return false
                }
                swap(&batch, &state.pending)
                return true
            }
            guard more else { return }
            writeAll(batch)
            batch.removeAll(keepingCapacity: batch.capacity <= limit)
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // standard output is gone: nobody can read the log any more
                }
                offset += written
            }
        }
    }
}

/// `write(2)`, named apart from `LogOutput.write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
