/// A seeded random number generator (SplitMix64): the same seed gives the same run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator of its own for one thing (an order's prep durations), whatever else was drawn.
    public static func derived(seed: UInt64, _ parts: [UInt64]) -> SeededGenerator {
        var generator = SeededGenerator(seed: seed)
        for part in parts { generator = SeededGenerator(seed: generator.next() ^ part) }
        return generator
    }

    /// A uniform draw in `0..<1`.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A hash of `text` that is the same in every run (FNV-1a), to derive generators from names.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
