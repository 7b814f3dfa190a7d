import Foundation

/// Comparisons of secret material whose time does not depend on where the bytes differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, looking at every byte of both.
    public static func equals(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
