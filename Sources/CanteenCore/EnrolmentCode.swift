/// The one-time codes with which a user registers their own badge at a kiosk: 12 characters of a
/// 31-letter alphabet without look-alikes (no 0/O, 1/I/L), shown in groups of four
/// (`7KQM-X2PA-9RTD`) and typed in any case, with or without dashes and spaces.
///
/// 31^12 ≈ 7.9 × 10^17 codes: a kiosk gets at most 10 wrong guesses a minute (per token and per
/// café, on each server), 150 in a code's 15 minutes, so one guess in 5 × 10^15 finds that code
/// (docs/nfc.md, "Guessing").
public enum EnrolmentCode {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// Characters in a code, dashes aside.
    public static let length = 12

    /// A fresh code from the system's secure generator, grouped by four.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
        return stride(from: 0, to: length, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// A typed code as it is compared: upper case, without spaces and dashes.
    public static func normalized(_ typed: String) -> String {
        typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
    }
}
