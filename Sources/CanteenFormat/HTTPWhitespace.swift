extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space).
    ///
    /// Header values are trimmed on every request; Foundation's `trimmingCharacters(in:)`
    /// builds a character set each time and showed up in profiles of the 304 polls.
    public func trimmingHTTPWhitespace() -> String {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
