import Synchronization

/// Counts outcomes from concurrent tasks.
public final class Tally: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    public init() {}

    public func add(_ outcome: String) { counts.withLock { $0[outcome, default: 0] += 1 } }

    public var snapshot: [String: Int] { counts.withLock { $0 } }
}
