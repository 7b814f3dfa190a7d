import Beacons
import CanteenAPI
import CanteenCore
import CanteenPostgres
import CanteenStore
import Foundation

/// Where the beacon commands (`range`, `scan`, `calibrate`) take the registry from: the
/// database of `--data-dir` (what `PUT /v1/beacons` and café files register), or a
/// `--beacons FILE` given to override it.
public enum BeaconRegistrySource: Sendable, Equatable, CustomStringConvertible {
    /// A JSON list of `{uuid, major, minor, cafeId, label, measuredPower}`.
    case file(URL)
    /// The database in this data directory.
    case database(URL)
    /// A PostgreSQL database (`--database`).
    case postgres(PostgresURL)

    /// `--beacons FILE` when given, else the data directory's database.
    public init(beaconsFile: String?, dataDirectory: String) {
        if let beaconsFile {
            self = .file(URL(fileURLWithPath: beaconsFile))
        } else {
            self = .database(URL(fileURLWithPath: dataDirectory))
        }
    }

    /// `--beacons FILE` when given, else the stores' database.
    public init(beaconsFile: String?, store: StoreLocation) {
        switch (beaconsFile, store) {
        case (let file?, _): self = .file(URL(fileURLWithPath: file))
        case (nil, .postgres(let url, _)): self = .postgres(url)
        case (nil, .sqlite(let directory)): self = .database(directory ?? URL(fileURLWithPath: ".canteen"))
        }
    }

    public var description: String {
        switch self {
        case .file(let url): "the beacon file \(url.path)"
        case .database(let directory): "the database in \(directory.path)"
        case .postgres(let url): "the database \(url)"
        }
    }

    // MARK: - Reading

    /// The registered beacons. A data directory without a database gives an empty registry
    /// (and creates nothing).
    public func load() async throws -> BeaconRegistry {
        switch self {
        case .file(let url):
            do {
                return try BeaconRegistry(contentsOf: url)
            } catch {
                throw CanteenError(
                    .invalid, code: .invalidBeaconFile,
                    message: "cannot read the beacon registry \(url.path): \(error)")
            }
        case .database(let directory):
            guard AppDatabase.exists(in: directory) else { return BeaconRegistry() }
            let stores = try CanteenStores.open(dataDirectory: directory)
            defer { try? stores.sqliteDatabase?.close() }
            return try await stores.beacons.registry()
        case .postgres(let url):
            return try await CanteenStores.open(postgres: url, cardKey: nil).withDatabase {
                try await $0.beacons.registry()
            }
        }
    }

    // MARK: - Calibration

    /// Stores `measuredPower` as the calibrated power of a registered beacon and returns the
    /// registration before and after. Throws `beacon_not_found` for an unregistered beacon and
    /// `out_of_range` outside −127…20 dBm.
    @discardableResult
    public func storeMeasuredPower(_ measuredPower: Int, for identity: BeaconIdentity) async throws
        -> (previous: BeaconRegistration, updated: BeaconRegistration)
    {
        guard BeaconRegistration.measuredPowerRange.contains(measuredPower) else {
            throw CanteenError(
                .invalid, code: .outOfRange,
                message: "a measured power of \(measuredPower) dBm is outside −127…20; not stored",
                field: "measuredPower")
        }
        let notFound = BeaconRegistration.notFound(uuid: identity.uuid, major: identity.major, minor: identity.minor)
        switch self {
        case .file(let url):
            var registry = try await load()
            guard let previous = registry[identity] else { throw notFound }
            var updated = previous
            updated.measuredPower = measuredPower
            registry.register(updated)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let list = registry.beacons.values.sorted { $0.identity < $1.identity }
            try encoder.encode(list).write(to: url, options: .atomic)
            return (BeaconRegistration(previous), BeaconRegistration(updated))
        case .database(let directory):
            guard AppDatabase.exists(in: directory) else { throw notFound }
            let stores = try CanteenStores.open(dataDirectory: directory)
            defer { try? stores.sqliteDatabase?.close() }
            return try await Self.calibrate(identity, measuredPower, in: stores.beacons, notFound: notFound)
        case .postgres(let url):
            return try await CanteenStores.open(postgres: url, cardKey: nil).withDatabase { stores in
                try await Self.calibrate(identity, measuredPower, in: stores.beacons, notFound: notFound)
            }
        }
    }

    private static func calibrate(
        _ identity: BeaconIdentity, _ measuredPower: Int, in beacons: any BeaconRepository,
        notFound: CanteenError
    ) async throws -> (previous: BeaconRegistration, updated: BeaconRegistration) {
        guard let previous = try await beacons.beacon(uuid: identity.uuid, major: identity.major, minor: identity.minor)
        else { throw notFound }
        var updated = previous
        updated.measuredPower = measuredPower
        try await beacons.saveBeacon(updated)
        return (previous, updated)
    }
}
