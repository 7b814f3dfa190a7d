import Beacons
import CanteenCore
import Foundation

// MARK: - Registry from the repository

extension BeaconRepository {
    /// The registered beacons as the ranging engine's registry.
    public func registry() async throws -> BeaconRegistry {
        BeaconRegistry(try await beacons().map(RegisteredBeacon.init))
    }
}

extension RegisteredBeacon {
    /// The engine's view of a stored registration.
    public init(_ registration: BeaconRegistration) {
        self.init(
            identity: BeaconIdentity(uuid: registration.uuid, major: registration.major, minor: registration.minor),
            cafeID: registration.cafeID, label: registration.label, measuredPower: registration.measuredPower)
    }
}

extension BeaconRegistration {
    /// A registration from the engine's view (as a `--beacons` file holds it).
    public init(_ beacon: RegisteredBeacon) {
        self.init(
            uuid: beacon.identity.uuid, major: beacon.identity.major, minor: beacon.identity.minor,
            cafeID: beacon.cafeID, label: beacon.label, measuredPower: beacon.measuredPower)
    }
}
