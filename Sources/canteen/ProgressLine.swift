import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A command's progress on stderr: one line rewritten in place on a terminal; elsewhere (a pipe,
/// a log) only the milestones, a line each. `db copy`'s tables, `db backup`'s pages.
final class ProgressLine: Sendable {
    private let terminal = isatty(STDERR_FILENO) == 1

    func show(_ line: String, finished: Bool, milestone: Bool) {
        if terminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)\(finished ? "\n" : "")".utf8))
        } else if milestone {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }
}

/// The time since `start` in seconds, with one decimal.
func seconds(since start: ContinuousClock.Instant) -> String {
    let elapsed = (ContinuousClock.now - start).components
    let value = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    return value.formatted(.number.precision(.fractionLength(1)))
}
