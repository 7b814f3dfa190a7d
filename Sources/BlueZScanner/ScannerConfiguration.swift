import Beacons
import Foundation

// MARK: - ScannerConfiguration

/// How the scanner opens the adapter and scans.
public struct ScannerConfiguration: Hashable, Sendable {
    /// Adapter name (`hci0`); nil takes the first available one.
    public var device: String?
    /// Active scanning asks for scan responses; passive only listens.
    public var active: Bool
    /// Scan interval and window in units of 0.625 ms (default 0x0010 = 10 ms each: listen all the time).
    public var interval: UInt16
    public var window: UInt16
    /// A btsnoop file (datalink 1002) to record every packet sent and read to, or nil.
    public var recordURL: URL?
    /// Seconds to wait for the controller to answer a command.
    public var commandTimeout: Double

    public init(
        device: String? = nil, active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
        recordURL: URL? = nil, commandTimeout: Double = 5
    ) {
        self.device = device
        self.active = active
        self.interval = interval
        self.window = window
        self.recordURL = recordURL
        self.commandTimeout = commandTimeout
    }
}

// MARK: - ScanMode

/// Which scanning commands the controller was driven with.
public enum ScanMode: String, Hashable, Sendable {
    /// LE Set Extended Scan Parameters / Enable.
    case extended
    /// LE Set Scan Parameters / Enable.
    case legacy
}

// MARK: - ScannerEvent

/// What the scanner reports while it runs.
public enum ScannerEvent: Hashable, Sendable {
    /// Scanning is on, in this mode.
    case started(ScanMode)
    /// An iBeacon was heard.
    case sighting(IBeaconSighting)
    /// Scanning was switched off and the filter restored.
    case stopped
}
