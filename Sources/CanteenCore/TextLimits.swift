/// Bounds on text a client sends: a length in characters (what a person counts) and in UTF-8
/// bytes (what is stored and sent: a few characters can carry kilobytes of combining marks),
/// and no control characters (NUL, escape sequences, C1 codes) in anything shown to people.
public enum TextLimits {
    /// What a piece of text may hold.
    public enum Kind: Sendable {
        /// A name or label shown on screens: no control character at all.
        case name
        /// Free text such as a kitchen note: line breaks and tabs allowed, other controls not.
        case freeText
    }

    /// Bytes allowed per character when only characters are given: 4 (any one scalar).
    public static let bytesPerCharacter = 4

    /// The first control character that `kind` does not allow, or nil.
    public static func forbiddenControl(in text: String, kind: Kind) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) else { return false }
            if case .freeText = kind, value == 0x0A || value == 0x0D || value == 0x09 { return false }
            return true
        }
    }

    /// The problem with `text` under these limits, as a message and its code; nil when it fits.
    public static func problem(
        _ text: String, maxCharacters: Int, maxBytes: Int? = nil,
        kind: Kind = .name
    ) -> (message: String, code: ErrorCode)? {
        if let control = forbiddenControl(in: text, kind: kind) {
            let hex = String(control.value, radix: 16, uppercase: true)
            return (
                "holds the control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex); "
                    + (kind == .name
                        ? "names and labels hold no control characters" : "only line breaks and tabs are allowed"),
                .controlCharacter
            )
        }
        let byteLimit = maxBytes ?? maxCharacters * bytesPerCharacter
        let bytes = text.utf8.count
        if bytes > byteLimit {
            return (
                "has at most \(maxCharacters) characters and \(byteLimit) bytes of UTF-8, found \(bytes) bytes",
                .textTooLong
            )
        }
        let characters = text.count
        if characters > maxCharacters {
            return ("has at most \(maxCharacters) characters, found \(characters)", .textTooLong)
        }
        return nil
    }

    /// Throws 422 naming `field` when `text` breaks the limits.
    public static func check(
        _ text: String, field: String, maxCharacters: Int, maxBytes: Int? = nil,
        kind: Kind = .name
    ) throws(CanteenError) {
        if let problem = problem(text, maxCharacters: maxCharacters, maxBytes: maxBytes, kind: kind) {
            throw CanteenError(.invalid, code: problem.code, message: "\(field) \(problem.message)", field: field)
        }
    }
}
