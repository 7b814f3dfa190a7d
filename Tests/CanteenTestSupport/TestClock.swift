import Foundation
import Synchronization

/// A clock a test sets by hand.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    public var now: Date { current.withLock { $0 } }

    public func set(_ date: Date) { current.withLock { $0 = date } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// The clock as the closure the stores and routes take.
    public var closure: @Sendable () -> Date { { [self] in self.now } }
}
