import Foundation

/// Keeps token secrets out of what Canteen writes: an error that echoes a client's text
/// (a role, a key, a name) or an internal error's description passes through here first.
enum Redaction {
    /// `text` with every token-shaped run (`cnt_` and 8 or more URL-safe characters) cut to `cnt_…`.
    static func redactingTokens(_ text: String) -> String {
        guard text.contains("cnt_") else { return text }
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "cnt_") {
            result += rest[..<range.lowerBound]
            let tail = rest[range.upperBound...]
            let secret = tail.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            if secret.count >= 8 {
                result += "cnt_…"
                rest = tail.dropFirst(secret.count)
            } else {
                result += "cnt_"
                rest = tail
            }
        }
        return result + rest
    }
}
