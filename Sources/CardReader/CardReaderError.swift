// MARK: - CardReaderError

/// Why talking to a reader or card failed: a stable code, a message and the PC/SC status when there is one.
public struct CardReaderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifier: `reader_unavailable`, `reader_not_found`, `card_removed`, `card_error`,
    /// `card_unsupported`, `tag_too_small`, `tag_read_only`, `verify_failed`, `timeout`, `cancelled`.
    public var code: String
    public var message: String
    /// The pcsc-lite status, e.g. `0x80100069`, when PC/SC reported it.
    public var status: Int?
    /// The status word with which the reader or card refused a command (e.g. `6A 81`, `63 00`), when it did: a
    /// refusal, as opposed to an exchange that failed.
    public var statusWord: [UInt8]?

    public init(code: String, message: String, status: Int? = nil, statusWord: [UInt8]? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.statusWord = statusWord
    }

    public var description: String { message }
}
