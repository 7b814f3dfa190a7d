/// Identifiers used in URLs: 1–64 of `a-z 0-9 - _`, starting with a letter or digit.
public enum Identifier {
    public static func isValid(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), let first = id.utf8.first else { return false }
        let isLowerOrDigit: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) }
        return isLowerOrDigit(first) && id.utf8.allSatisfy { isLowerOrDigit($0) || $0 == 45 || $0 == 95 }
    }
}
