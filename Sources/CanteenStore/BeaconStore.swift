import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// The SQLite implementation of `BeaconRepository`, over the `beacon` table that café
/// documents also fill.
///
/// A registered beacon must lie in its café's `beaconRegion` (same UUID and major), so that
/// `GET /v1/cafes/{id}` shows every beacon of the café and saving the café document back keeps
/// them. Every change moves the café's version, like any other change to its configuration.
public final class BeaconStore: BeaconRepository {
    let database: AppDatabase
    /// The cafés whose cached configuration (which lists their beacons) a change must refresh.
    private let cafes: CafeStore
    private let clock: @Sendable () -> Date

    public init(database: AppDatabase, cafes: CafeStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.cafes = cafes
        self.database = database
        self.clock = clock
    }

    // MARK: - Reads

    public func beacons() async throws -> [BeaconRegistration] {
        try await database.writer.read { db in
            try BeaconRecord.order(Column("uuid"), Column("major"), Column("minor")).fetchAllNamingRows(db).map {
                try $0.registration()
            }
        }
    }

    public func beacon(uuid: UUID, major: UInt16, minor: UInt16) async throws -> BeaconRegistration? {
        try await database.writer.read { db in
            try BeaconRecord.filter(key: Self.key(uuid, major, minor)).fetchOneNamingRow(db)?.registration()
        }
    }

    // MARK: - Writes

    @discardableResult
    public func saveBeacon(_ beacon: BeaconRegistration, audit: AuditEntry?) async throws -> Bool {
        let now = clock()
        defer { cafes.recentCafes.removeAll() }
        return try await database.writer.write { db in
            guard let cafe = try CafeRecord.filter(key: beacon.cafeID).fetchOneNamingRow(db) else {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(beacon.cafeID)'",
                    field: "cafeId", parameters: ["cafe": beacon.cafeID])
            }
            guard cafe.beaconUUID == beacon.uuid.uuidString, cafe.beaconMajor == Int(beacon.major) else {
                throw CanteenError(
                    .invalid, code: .beaconOutsideRegion,
                    message: "café '\(cafe.id)' has the beacon region \(cafe.beaconUUID)/\(cafe.beaconMajor); "
                        + "\(beacon.identityText) is outside it (change the café's beaconRegion first)",
                    field: "cafeId", parameters: ["cafe": cafe.id])
            }
            let previous = try BeaconRecord.filter(key: Self.key(beacon.uuid, beacon.major, beacon.minor))
                .fetchOneNamingRow(db)
            try BeaconRecord(beacon).upsert(db)
            try CafeStore.bumpVersion(db, cafeID: beacon.cafeID, now: now)
            if let previous, previous.cafeId != beacon.cafeID {
                try CafeStore.bumpVersion(db, cafeID: previous.cafeId, now: now)
            }
            try AuditStore.record(
                audit, before: try previous.map { try $0.registration().audited },
                after: beacon.audited, at: now, db)
            return previous == nil
        }
    }

    public func deleteBeacon(uuid: UUID, major: UInt16, minor: UInt16, audit: AuditEntry?) async throws {
        let now = clock()
        defer { cafes.recentCafes.removeAll() }
        try await database.writer.write { db in
            guard let record = try BeaconRecord.filter(key: Self.key(uuid, major, minor)).fetchOneNamingRow(db) else {
                throw BeaconRegistration.notFound(uuid: uuid, major: major, minor: minor)
            }
            try record.delete(db)
            try CafeStore.bumpVersion(db, cafeID: record.cafeId, now: now)
            var entry = audit
            entry?.cafeID = record.cafeId
            try AuditStore.record(entry, before: try record.registration().audited, after: nil, at: now, db)
        }
    }

    private static func key(_ uuid: UUID, _ major: UInt16, _ minor: UInt16) -> [String: (any DatabaseValueConvertible)?]
    {
        ["uuid": uuid.uuidString, "major": Int(major), "minor": Int(minor)]
    }
}

// MARK: - BeaconRecord ↔ BeaconRegistration

extension BeaconRecord {
    init(_ beacon: BeaconRegistration) {
        self.init(
            uuid: beacon.uuid.uuidString, major: Int(beacon.major), minor: Int(beacon.minor),
            cafeId: beacon.cafeID, label: beacon.label, measuredPower: beacon.measuredPower)
    }

    /// The row as a registration; an identity that does not parse is an error naming the row.
    func registration() throws -> BeaconRegistration {
        guard let parsed = UUID(uuidString: uuid), let major = UInt16(exactly: major),
            let minor = UInt16(exactly: minor)
        else {
            throw StoredRow.invalid(
                table: Self.databaseTableName, id: "\(uuid)/\(major)/\(minor)",
                "not a beacon identity (UUID, 16-bit major and minor)")
        }
        return BeaconRegistration(
            uuid: parsed, major: major, minor: minor, cafeID: cafeId, label: label,
            measuredPower: measuredPower)
    }
}
