// MARK: - HCIOpcode

/// The HCI commands the scanner sends.
public enum HCIOpcode {
    public static let readLocalSupportedCommands: UInt16 = 0x1002
    public static let leSetScanParameters: UInt16 = 0x200B
    public static let leSetScanEnable: UInt16 = 0x200C
    public static let leSetExtendedScanParameters: UInt16 = 0x2041
    public static let leSetExtendedScanEnable: UInt16 = 0x2042

    /// A readable name for log lines and errors.
    public static func name(_ opcode: UInt16) -> String {
        switch opcode {
        case readLocalSupportedCommands: "Read Local Supported Commands"
        case leSetScanParameters: "LE Set Scan Parameters"
        case leSetScanEnable: "LE Set Scan Enable"
        case leSetExtendedScanParameters: "LE Set Extended Scan Parameters"
        case leSetExtendedScanEnable: "LE Set Extended Scan Enable"
        default: "HCI command 0x" + String(opcode, radix: 16, uppercase: true)
        }
    }
}

// MARK: - SupportedCommands

/// The controller's supported-commands bitmap (64 octets, Read Local Supported Commands).
public struct SupportedCommands: Hashable, Sendable {
    public var octets: [UInt8]

    public init(octets: [UInt8]) {
        self.octets = octets
    }

    /// Whether octet `octet`, bit `bit` is set.
    public func contains(octet: Int, bit: Int) -> Bool {
        octets.indices.contains(octet) && octets[octet] & (1 << UInt8(bit)) != 0
    }

    /// LE Set Extended Scan Parameters (octet 37 bit 5) and Enable (octet 37 bit 6) are both present.
    public var supportsExtendedScanning: Bool {
        contains(octet: 37, bit: 5) && contains(octet: 37, bit: 6)
    }

    /// A bitmap with or without the extended scanning commands (for tests and fake controllers).
    public static func bitmap(extendedScanning: Bool) -> SupportedCommands {
        var octets = [UInt8](repeating: 0xFF, count: 64)
        octets[37] = extendedScanning ? 0xFF : 0x9F
        return SupportedCommands(octets: octets)
    }
}
