// MARK: - BTSnoopError

/// Why bytes could not be read as a btsnoop capture.
public struct BTSnoopError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifier: `btsnoop_not_btsnoop`, `btsnoop_unsupported_version`, `btsnoop_unsupported_datalink`.
    public var code: String
    public var message: String

    public var description: String { message }

    static let notBTSnoop = BTSnoopError(
        code: "btsnoop_not_btsnoop",
        message: "not a btsnoop capture: the file does not start with \"btsnoop\\0\" and a 16-byte header")

    static func unsupportedVersion(_ version: UInt32) -> BTSnoopError {
        BTSnoopError(
            code: "btsnoop_unsupported_version", message: "btsnoop version \(version) is not supported (only 1)")
    }

    static func unsupportedDatalink(_ datalink: UInt32) -> BTSnoopError {
        BTSnoopError(
            code: "btsnoop_unsupported_datalink",
            message: "btsnoop datalink \(datalink) is not supported (1001, 1002 and 2001 are)")
    }
}
