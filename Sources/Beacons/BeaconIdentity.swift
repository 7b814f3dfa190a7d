import Foundation

// MARK: - BeaconIdentity

/// What names an iBeacon: proximity UUID (the company), major (the café), minor (the station).
public struct BeaconIdentity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Parses `UUID/MAJOR/MINOR`, as the command line takes it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let uuid = UUID(uuidString: String(parts[0])),
            let major = UInt16(parts[1]), let minor = UInt16(parts[2])
        else { return nil }
        self.init(uuid: uuid, major: major, minor: minor)
    }

    /// `UUID/MAJOR/MINOR` with the UUID upper-case.
    public var description: String { "\(uuid.uuidString)/\(major)/\(minor)" }

    public static func < (lhs: BeaconIdentity, rhs: BeaconIdentity) -> Bool {
        (lhs.uuid.uuidString, lhs.major, lhs.minor) < (rhs.uuid.uuidString, rhs.major, rhs.minor)
    }
}
