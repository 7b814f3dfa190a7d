/// The ids of the employees preferences belong to (the identity provider's, opaque to Canteen).
public enum UserID {
    /// The longest user id.
    public static let maxLength = 128

    /// 1–128 of ASCII letters, digits, `-`, `_`, `.` and `@`.
    public static func isValid(_ id: String) -> Bool {
        guard (1...maxLength).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "@")
        }
    }

    /// Throws 422 `invalid_field` naming `userId` for an id outside the safe set.
    public static func validate(_ id: String) throws(CanteenError) {
        guard isValid(id) else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "'\(id.prefix(140))' is not a user id: use 1–128 of letters, digits, '-', '_', '.' and '@'",
                field: "userId")
        }
    }
}
