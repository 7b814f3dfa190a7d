#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - ScannerError

/// Why the scanner could not start or stopped: a stable `code`, a message saying what to do, and the
/// cause (errno or HCI status) when there is one.
public struct ScannerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifier, e.g. `not_permitted`, `command_failed`.
    public var code: String
    public var message: String
    /// The errno of the failed system call, if any.
    public var errno: Int32?
    /// The HCI status a command failed with, if any (0x0C = Command Disallowed).
    public var hciStatus: UInt8?
    /// The opcode of the failed command, if any.
    public var opcode: UInt16?

    public init(code: String, message: String, errno: Int32? = nil, hciStatus: UInt8? = nil, opcode: UInt16? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.hciStatus = hciStatus
        self.opcode = opcode
    }

    public var description: String { message }
}

// MARK: - Known failures

extension ScannerError {
    static let setcapAdvice =
        "run as root, or grant the binary the capabilities: "
        + "sudo setcap cap_net_raw,cap_net_admin+eip \"$(command -v canteen)\""

    static func bluetoothUnavailable(errno: Int32) -> ScannerError {
        ScannerError(
            code: "bluetooth_unavailable",
            message: "this kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: \(describe(errno)))",
            errno: errno)
    }

    /// `adapters`: the adapters the kernel knows (`hci0`, `hci1 (down)`), nil when they could not be listed.
    static func noAdapter(_ device: String?, errno: Int32, adapters: [String]? = nil) -> ScannerError {
        let known =
            switch adapters {
            case nil: ""
            case let adapters? where adapters.isEmpty: "this machine has none; "
            case let adapters?: "adapters here: " + adapters.joined(separator: ", ") + "; "
            }
        let advice = "(\(known)see `btmgmt info` or `hciconfig`)"
        return ScannerError(
            code: "no_adapter",
            message: device.map { "no Bluetooth adapter named \($0) \(advice)" }
                ?? "no Bluetooth adapter found \(advice)",
            errno: errno)
    }

    static func adapterDown(_ device: String) -> ScannerError {
        ScannerError(
            code: "adapter_down",
            message:
                "adapter \(device) is down: power it on with `sudo btmgmt --index \(device.dropFirst(3)) power on` "
                + "(or `sudo hciconfig \(device) up`)")
    }

    static func notPermitted(_ operation: String, errno: Int32) -> ScannerError {
        ScannerError(
            code: "not_permitted",
            message: "\(operation) needs CAP_NET_RAW and CAP_NET_ADMIN: \(setcapAdvice)", errno: errno)
    }

    static func busy(_ device: String, errno: Int32) -> ScannerError {
        ScannerError(
            code: "busy",
            message: "adapter \(device) is busy (another program or bluetoothd holds it; \(describe(errno)))",
            errno: errno)
    }

    static func io(_ operation: String, errno: Int32) -> ScannerError {
        ScannerError(code: "io_failed", message: "\(operation) failed: \(describe(errno))", errno: errno)
    }

    static func commandFailed(opcode: UInt16, status: UInt8) -> ScannerError {
        let name = HCIOpcode.name(opcode)
        let statusText = "0x" + String(format2: status)
        let advice =
            status == 0x0C
            ? " (Command Disallowed: scanning is already in use, or the controller was switched to the other scanning mode; "
                + "stop bluetoothd's discovery or power-cycle the adapter)"
            : ""
        return ScannerError(
            code: "command_failed",
            message: "\(name) failed with HCI status \(statusText)\(advice)",
            hciStatus: status, opcode: opcode)
    }

    static func commandTimeout(opcode: UInt16) -> ScannerError {
        ScannerError(
            code: "command_timeout", message: "the controller did not answer \(HCIOpcode.name(opcode))", opcode: opcode)
    }

    static let transportClosed = ScannerError(code: "transport_closed", message: "the HCI connection closed")

    static func describe(_ errno: Int32) -> String {
        String(cString: strerror(errno)) + " (errno \(errno))"
    }
}

extension String {
    init(format2 byte: UInt8) {
        let text = String(byte, radix: 16, uppercase: true)
        self = text.count == 1 ? "0" + text : text
    }
}
