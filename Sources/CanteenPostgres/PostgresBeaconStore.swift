import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// The PostgreSQL implementation of `BeaconRepository`, over the `beacon` table that café
/// documents also fill. Every change moves the café's version, as in the SQLite store.
public final class PostgresBeaconStore: BeaconRepository {
    let database: PostgresDatabase
    /// The cafés whose cached configuration (which lists their beacons) a change must refresh.
    private let cafes: PostgresCafeStore
    private let clock: @Sendable () -> Date

    public init(database: PostgresDatabase, cafes: PostgresCafeStore, clock: @escaping @Sendable () -> Date = Date.init)
    {
        self.database = database
        self.cafes = cafes
        self.clock = clock
    }

    private static let select = "SELECT uuid, major, minor, cafeId, label, measuredPower FROM beacon"

    // MARK: - Reads

    public func beacons() async throws -> [BeaconRegistration] {
        try await database.withConnection { connection in
            try await connection.rows(
                "\(unescaped: Self.select) ORDER BY uuid, major, minor", logger: self.database.logger
            )
            .map { try BeaconRow($0).registration() }
        }
    }

    public func beacon(uuid: UUID, major: UInt16, minor: UInt16) async throws -> BeaconRegistration? {
        try await database.withConnection { connection in
            try await connection.firstRow(
                """
                \(unescaped: Self.select) WHERE uuid = \(uuid.uuidString) AND major = \(Int(major)) AND minor = \(Int(minor))
                """, logger: self.database.logger
            ).map { try BeaconRow($0).registration() }
        }
    }

    // MARK: - Writes

    @discardableResult
    public func saveBeacon(_ beacon: BeaconRegistration, audit: AuditEntry?) async throws -> Bool {
        let now = clock()
        defer { cafes.recentCafes.removeAll() }
        return try await database.transaction { connection in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    "SELECT id, beaconUUID, beaconMajor FROM cafe WHERE id = \(beacon.cafeID) FOR UPDATE",
                    logger: logger)
            else {
                throw CanteenError(
                    .invalid, code: .unknownCafe, message: "no café with id '\(beacon.cafeID)'",
                    field: "cafeId", parameters: ["cafe": beacon.cafeID])
            }
            let (cafeID, regionUUID, regionMajor) = try StoredColumns.decode(
                row, table: "cafe", (String, String, Int).self)
            guard regionUUID == beacon.uuid.uuidString, regionMajor == Int(beacon.major) else {
                throw CanteenError(
                    .invalid, code: .beaconOutsideRegion,
                    message: "café '\(cafeID)' has the beacon region \(regionUUID)/\(regionMajor); "
                        + "\(beacon.identityText) is outside it (change the café's beaconRegion first)",
                    field: "cafeId", parameters: ["cafe": cafeID])
            }
            let previousBeacon = try await connection.firstRow(
                """
                \(unescaped: Self.select)
                WHERE uuid = \(beacon.uuid.uuidString) AND major = \(Int(beacon.major)) AND minor = \(Int(beacon.minor))
                FOR UPDATE
                """, logger: logger
            ).map { try BeaconRow($0).registration() }
            let previous = previousBeacon?.cafeID
            try await connection.run(
                """
                INSERT INTO beacon (uuid, major, minor, cafeId, label, measuredPower)
                VALUES (\(beacon.uuid.uuidString), \(Int(beacon.major)), \(Int(beacon.minor)), \(beacon.cafeID),
                    \(beacon.label), \(beacon.measuredPower))
                ON CONFLICT (uuid, major, minor) DO UPDATE SET cafeId = excluded.cafeId, label = excluded.label,
                    measuredPower = excluded.measuredPower
                """, logger: logger)
            try await PostgresCafeStore.bumpVersion(connection, cafeID: beacon.cafeID, now: now, logger: logger)
            if let previous, previous != beacon.cafeID {
                try await PostgresCafeStore.bumpVersion(connection, cafeID: previous, now: now, logger: logger)
            }
            try await PostgresAuditStore.record(
                audit, before: previousBeacon?.audited, after: beacon.audited, at: now,
                connection, logger: logger)
            return previous == nil
        }
    }

    public func deleteBeacon(uuid: UUID, major: UInt16, minor: UInt16, audit: AuditEntry?) async throws {
        let now = clock()
        defer { cafes.recentCafes.removeAll() }
        try await database.transaction { connection in
            let logger = self.database.logger
            guard
                let row = try await connection.firstRow(
                    """
                    DELETE FROM beacon WHERE uuid = \(uuid.uuidString) AND major = \(Int(major)) AND minor = \(Int(minor))
                    RETURNING uuid, major, minor, cafeId, label, measuredPower
                    """, logger: logger)
            else {
                throw BeaconRegistration.notFound(uuid: uuid, major: major, minor: minor)
            }
            let removed = try BeaconRow(row).registration()
            try await PostgresCafeStore.bumpVersion(connection, cafeID: removed.cafeID, now: now, logger: logger)
            var entry = audit
            entry?.cafeID = removed.cafeID
            try await PostgresAuditStore.record(
                entry, before: removed.audited, after: nil, at: now, connection,
                logger: logger)
        }
    }
}
