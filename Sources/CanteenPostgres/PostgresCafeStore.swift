import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import PostgresNIO
import Synchronization

/// The PostgreSQL implementation of `CafeRepository`.
///
/// Like the SQLite store: assembled menus are cached by café and version (a read costs one
/// indexed query while the menu is unchanged), and cafés by id until any server changes one
/// (the `cafes` notification), so a change made on one server is served by all within
/// milliseconds.
public final class PostgresCafeStore: CafeRepository {
    let database: PostgresDatabase
    private let clock: @Sendable () -> Date
    private let menuCache = Mutex<[String: CafeMenu]>([:])
    let recentCafes: FollowingCache<String, VersionedCafe>

    public init(database: PostgresDatabase, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = clock
        recentCafes = FollowingCache(following: .cafes, in: database.changes)
    }

    // MARK: - Reads

    public func cafes() async throws -> [VersionedCafe] {
        try await database.withConnection { connection in
            let beacons = try await Self.beaconsByCafe(connection, cafeID: nil, logger: self.database.logger)
            return try await connection.rows("\(unescaped: CafeRow.select) ORDER BY id", logger: self.database.logger)
                .map { try CafeRow($0).versioned(beacons: beacons) }
        }
    }

    public func cafe(id: String) async throws -> VersionedCafe? {
        try await recentCafes.value(for: id) {
            try await database.withConnection { connection in
                try await Self.fetchCafe(connection, id: id, logger: self.database.logger)
            }
        }
    }

    public func menu(cafeID: String) async throws -> CafeMenu? {
        try await database.withConnection { connection in
            try await self.menu(connection, cafeID: cafeID)
        }
    }

    /// The café's menu on `connection`: one query while the cached version is current.
    func menu(_ connection: PostgresConnection, cafeID: String) async throws -> CafeMenu? {
        guard
            let row = try await connection.firstRow(
                "SELECT menuVersion FROM cafe WHERE id = \(cafeID)",
                logger: database.logger)
        else { return nil }
        return try await menu(
            connection, cafeID: cafeID, version: try StoredColumns.decode(row, table: "cafe", Int64.self))
    }

    /// The café's menu at `version` (read by the caller, e.g. with the café's lock): no query
    /// while the cached version is that one.
    func menu(_ connection: PostgresConnection, cafeID: String, version: Int64) async throws -> CafeMenu? {
        let logger = database.logger
        if let cached = menuCache.withLock({ $0[cafeID] }), cached.version == version { return cached }
        guard let loaded = try await Self.fetchMenu(connection, cafeID: cafeID, logger: logger) else { return nil }
        menuCache.withLock { cache in
            if (cache[cafeID]?.version ?? -1) < loaded.version { cache[cafeID] = loaded }
        }
        return loaded
    }

    static func fetchCafe(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> VersionedCafe? {
        guard let row = try await connection.firstRow("\(unescaped: CafeRow.select) WHERE id = \(id)", logger: logger)
        else { return nil }
        let beacons = try await beaconsByCafe(connection, cafeID: id, logger: logger)
        return try CafeRow(row).versioned(beacons: beacons)
    }

    private static func beaconsByCafe(
        _ connection: PostgresConnection, cafeID: String?,
        logger: Logger
    ) async throws -> [String: [BeaconPlacement]] {
        let query: PostgresQuery =
            cafeID.map {
                "SELECT uuid, major, minor, cafeId, label, measuredPower FROM beacon WHERE cafeId = \($0) ORDER BY minor"
            } ?? "SELECT uuid, major, minor, cafeId, label, measuredPower FROM beacon ORDER BY cafeId, minor"
        var placements: [String: [BeaconPlacement]] = [:]
        for row in try await connection.rows(query, logger: logger) {
            let beacon = try BeaconRow(row).registration()
            placements[beacon.cafeID, default: []].append(
                BeaconPlacement(minor: beacon.minor, label: beacon.label, measuredPower: beacon.measuredPower))
        }
        return placements
    }

    static func fetchMenu(_ connection: PostgresConnection, cafeID: String, logger: Logger) async throws -> CafeMenu? {
        guard let cafe = try await fetchCafe(connection, id: cafeID, logger: logger) else { return nil }
        var dayParts: [DayPart] = []
        for row in try await connection.rows(
            """
            SELECT id, names, start, "end" FROM dayPart WHERE cafeId = \(cafeID) ORDER BY position
            """, logger: logger)
        {
            let (id, names, start, end) = try StoredColumns.decode(
                row, table: "dayPart", (String, String, String, String).self)
            let columns = StoredColumns(table: "dayPart", id: "\(cafeID)/\(id)")
            guard let startTime = LocalTime(parsing: start), let endTime = LocalTime(parsing: end) else {
                throw StoredRow.invalid(
                    table: "dayPart", id: "\(cafeID)/\(id)", "'\(start)'–'\(end)' are not times of day")
            }
            dayParts.append(DayPart(id: id, names: try columns.json(names, "names"), start: startTime, end: endTime))
        }
        var categories: [MenuCategory] = []
        for row in try await connection.rows(
            "SELECT id, names FROM menuCategory WHERE cafeId = \(cafeID) ORDER BY position", logger: logger)
        {
            let (id, names) = try StoredColumns.decode(row, table: "menuCategory", (String, String).self)
            categories.append(
                MenuCategory(
                    id: id,
                    names: try StoredColumns(table: "menuCategory", id: "\(cafeID)/\(id)")
                        .json(names, "names")))
        }
        var options: [String: [ModifierOption]] = [:]
        for row in try await connection.rows(
            """
            SELECT id, itemId, groupId, names, priceDelta FROM modifierOption WHERE cafeId = \(cafeID) ORDER BY position
            """, logger: logger)
        {
            let (id, itemID, groupID, names, delta) = try StoredColumns.decode(
                row, table: "modifierOption", (String, String, String, String, Int64).self)
            let columns = StoredColumns(table: "modifierOption", id: "\(cafeID)/\(itemID)/\(groupID)/\(id)")
            options["\(itemID)/\(groupID)", default: []].append(
                ModifierOption(id: id, names: try columns.json(names, "names"), priceDelta: delta))
        }
        var groups: [String: [ModifierGroup]] = [:]
        for row in try await connection.rows(
            """
            SELECT id, itemId, names, minSelections, maxSelections FROM modifierGroup WHERE cafeId = \(cafeID)
            ORDER BY position
            """, logger: logger)
        {
            let (id, itemID, names, minimum, maximum) = try StoredColumns.decode(
                row, table: "modifierGroup", (String, String, String, Int, Int).self)
            let columns = StoredColumns(table: "modifierGroup", id: "\(cafeID)/\(itemID)/\(id)")
            groups[itemID, default: []].append(
                ModifierGroup(
                    id: id, names: try columns.json(names, "names"), min: minimum, max: maximum,
                    options: options["\(itemID)/\(id)"] ?? []))
        }
        var items: [MenuItem] = []
        for row in try await connection.rows(
            """
            SELECT id, categoryId, names, descriptions, price, station, allergens, dayParts, prepSeconds, dailyQuantity
            FROM menuItem WHERE cafeId = \(cafeID) ORDER BY position
            """, logger: logger)
        {
            let (id, category, names, descriptions, price, station, allergens, itemDayParts, prep, quantity) =
                try StoredColumns.decode(
                    row, table: "menuItem",
                    (String, String, String, String, Int64, String, String, String, Int?, Int?).self)
            let columns = StoredColumns(table: "menuItem", id: "\(cafeID)/\(id)")
            items.append(
                MenuItem(
                    id: id, category: category, names: try columns.json(names, "names"),
                    descriptions: try columns.json(descriptions, "descriptions"), price: price, station: station,
                    allergens: try columns.json(allergens, "allergens"),
                    dayParts: try columns.json(itemDayParts, "dayParts"),
                    modifierGroups: groups[id] ?? [], prepSeconds: prep, dailyQuantity: quantity))
        }
        var soldOut: [String: SoldOut] = [:]
        for row in try await connection.rows(
            #"SELECT itemId, "until" FROM soldOut WHERE cafeId = \#(cafeID)"#,
            logger: logger)
        {
            let (itemID, until) = try StoredColumns.decode(row, table: "soldOut", (String, Date?).self)
            soldOut[itemID] = SoldOut(itemID: itemID, until: until)
        }
        return CafeMenu(
            cafe: cafe.cafe, menu: Menu(dayParts: dayParts, categories: categories, items: items),
            soldOut: soldOut, version: cafe.menuVersion)
    }

    // MARK: - Writes

    public func saveCafe(_ cafe: Cafe, audit: AuditEntry?) async throws -> VersionedCafe {
        let now = clock()
        defer { recentCafes.invalidate(cafe.id) }
        return try await database.transaction { connection in
            let logger = self.database.logger
            let before = try await Self.fetchCafe(connection, id: cafe.id, logger: logger).map {
                CafeDocument.render($0.cafe)
            }
            try await Self.upsertCafe(connection, cafe, now: now, logger: logger)
            guard let saved = try await Self.fetchCafe(connection, id: cafe.id, logger: logger) else {
                throw CanteenError.notFound(.cafe, cafe.id)
            }
            try await PostgresAuditStore.record(
                audit, before: before, after: CafeDocument.render(saved.cafe), at: now,
                connection, logger: logger)
            return saved
        }
    }

    public func replaceMenu(cafeID: String, with menu: Menu, audit: AuditEntry?) async throws -> Int64 {
        let now = clock()
        defer { recentCafes.invalidate(cafeID) }
        return try await database.transaction { connection in
            let logger = self.database.logger
            try await Self.lockCafe(connection, cafeID, logger: logger)
            var before: JSONValue?
            if audit != nil {
                before = try await Self.fetchMenu(connection, cafeID: cafeID, logger: logger).map {
                    CafeDocument.render($0.menu)
                }
            }
            try await Self.writeMenu(connection, cafeID: cafeID, menu: menu, logger: logger)
            try await PostgresAuditStore.record(
                audit, before: before, after: CafeDocument.render(menu), at: now,
                connection, logger: logger)
            return try await Self.bumpVersion(connection, cafeID: cafeID, now: now, logger: logger)
        }
    }

    public func updateItem(
        cafeID: String, itemID: String, changes: [MenuItemChange],
        audit: AuditEntry?
    ) async throws -> Int64 {
        let now = clock()
        defer { recentCafes.invalidate(cafeID) }
        return try await database.transaction { connection in
            let logger = self.database.logger
            try await Self.lockCafe(connection, cafeID, logger: logger)
            guard
                try await connection.firstRow(
                    "SELECT 1 FROM menuItem WHERE cafeId = \(cafeID) AND id = \(itemID) FOR UPDATE", logger: logger)
                    != nil
            else { throw CanteenError.notFound(.item, itemID) }
            let before = try await Self.auditedItem(connection, cafeID: cafeID, itemID: itemID, logger: logger)
            for change in changes {
                switch change {
                case .soldOut(true, let until):
                    try await connection.run(
                        #"""
                        INSERT INTO soldOut (cafeId, itemId, "until", markedAt) VALUES (\#(cafeID), \#(itemID), \#(until), \#(now))
                        ON CONFLICT (cafeId, itemId) DO UPDATE SET "until" = excluded."until", markedAt = excluded.markedAt
                        """#, logger: logger)
                case .soldOut(false, _):
                    try await connection.run(
                        "DELETE FROM soldOut WHERE cafeId = \(cafeID) AND itemId = \(itemID)",
                        logger: logger)
                case .price(let price):
                    try await connection.run(
                        "UPDATE menuItem SET price = \(price) WHERE cafeId = \(cafeID) AND id = \(itemID)",
                        logger: logger)
                }
            }
            let after = try await Self.auditedItem(connection, cafeID: cafeID, itemID: itemID, logger: logger)
            try await PostgresAuditStore.record(
                audit, before: before, after: after, at: now, connection, logger: logger)
            return try await Self.bumpVersion(connection, cafeID: cafeID, now: now, logger: logger)
        }
    }

    /// What the audit log shows of an item change: its price and sold-out mark.
    private static func auditedItem(
        _ connection: PostgresConnection, cafeID: String, itemID: String,
        logger: Logger
    ) async throws -> JSONValue? {
        guard
            let row = try await connection.firstRow(
                #"""
                SELECT i.price, s.itemId IS NOT NULL, s."until" FROM menuItem i
                LEFT JOIN soldOut s ON s.cafeId = i.cafeId AND s.itemId = i.id
                WHERE i.cafeId = \#(cafeID) AND i.id = \#(itemID)
                """#, logger: logger)
        else { return nil }
        let (price, soldOut, until) = try StoredColumns.decode(row, table: "menuItem", (Int64, Bool, Date?).self)
        return MenuItemChange.audited(price: price, soldOut: soldOut, until: until)
    }

    public func importCafes(_ documents: [(cafe: Cafe, menu: Menu)]) async throws {
        let now = clock()
        defer { recentCafes.removeAll() }
        let documents = documents.map { CafeDocumentValue(cafe: $0.cafe, menu: $0.menu) }
        try await database.transaction { connection in
            for document in documents {
                try await Self.upsertCafe(connection, document.cafe, now: now, logger: self.database.logger)
                try await Self.writeMenu(
                    connection, cafeID: document.cafe.id, menu: document.menu,
                    logger: self.database.logger)
            }
        }
    }

    public func importCafesIfEmpty(_ documents: [(cafe: Cafe, menu: Menu)]) async throws -> Bool {
        let now = clock()
        defer { recentCafes.removeAll() }
        let documents = documents.map { CafeDocumentValue(cafe: $0.cafe, menu: $0.menu) }
        return try await database.transaction { connection in
            let logger = self.database.logger
            // Servers starting together wait here for each other; the second finds the cafés.
            try await connection.run("LOCK TABLE cafe IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            guard try await connection.firstRow("SELECT 1 FROM cafe LIMIT 1", logger: logger) == nil else {
                return false
            }
            for document in documents {
                try await Self.upsertCafe(connection, document.cafe, now: now, logger: logger)
                try await Self.writeMenu(connection, cafeID: document.cafe.id, menu: document.menu, logger: logger)
            }
            return true
        }
    }

    public func deleteCafe(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        defer { recentCafes.invalidate(id) }
        try await database.transaction { connection in
            let logger = self.database.logger
            try await Self.lockCafe(connection, id, logger: logger)
            let before = try await Self.fetchCafe(connection, id: id, logger: logger).map {
                CafeDocument.render($0.cafe)
            }
            var orders = 0
            if let row = try await connection.firstRow(
                "SELECT COUNT(*) FROM customerOrder WHERE cafeId = \(id)",
                logger: logger)
            {
                orders = try StoredColumns.decode(row, table: "customerOrder", Int.self)
            }
            guard orders == 0 else {
                throw CanteenError(
                    .conflict, code: .cafeInUse,
                    message: "café '\(id)' has \(orders) orders; a café with orders is never deleted",
                    parameters: ["cafe": id, "orders": "\(orders)"])
            }
            // Menu rows, sold-out marks and beacons go with the café (ON DELETE CASCADE).
            try await connection.run("DELETE FROM pickupSlot WHERE cafeId = \(id)", logger: logger)
            try await connection.run("DELETE FROM orderNumber WHERE cafeId = \(id)", logger: logger)
            try await connection.run("DELETE FROM cafe WHERE id = \(id)", logger: logger)
            try await PostgresAuditStore.record(audit, before: before, after: nil, at: now, connection, logger: logger)
        }
        menuCache.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Locks the café row for this transaction (`cafe_not_found` when there is none).
    static func lockCafe(_ connection: PostgresConnection, _ id: String, logger: Logger) async throws {
        guard try await connection.firstRow("SELECT 1 FROM cafe WHERE id = \(id) FOR UPDATE", logger: logger) != nil
        else {
            throw CanteenError.notFound(.cafe, id)
        }
    }

    /// Inserts or updates the café row and its beacons; the version moves past any earlier one.
    private static func upsertCafe(_ connection: PostgresConnection, _ cafe: Cafe, now: Date, logger: Logger)
        async throws
    {
        let row = CafeRow(cafe)
        try await connection.run(
            """
            INSERT INTO cafe (id, languages, names, timeZone, currency, defaultLocale, taxRateBasisPoints, taxIncluded,
                hours, beaconUUID, beaconMajor, pickupSlotMinutes, pickupCapacity, pickupCapacityUnit, pickupLeadMinutes,
                menuVersion, updatedAt, displayTicketWarningMinutes, displayTicketLateMinutes, displayBoardReadyMinutes,
                networks, displayTicketAllowanceMinutes, stations, fireByPrepTime)
            VALUES (\(row.id), \(try StoredJSON.text(cafe.languages)), \(try StoredJSON.text(cafe.names)), \(row.timeZone),
                \(row.currency), \(row.defaultLocale), \(row.taxRateBasisPoints), \(row.taxIncluded),
                \(try StoredJSON.text(cafe.hours)), \(row.beaconUUID), \(row.beaconMajor), \(row.pickupSlotMinutes),
                \(row.pickupCapacity), \(row.pickupCapacityUnit), \(row.pickupLeadMinutes), 1, \(now),
                \(row.displayTicketWarningMinutes), \(row.displayTicketLateMinutes), \(row.displayBoardReadyMinutes),
                \(try StoredJSON.text(cafe.networks)),
                \(row.displayTicketAllowanceMinutes), \(try StoredJSON.text(cafe.kitchen.stations)),
                \(row.fireByPrepTime))
            ON CONFLICT (id) DO UPDATE SET languages = excluded.languages, names = excluded.names,
                timeZone = excluded.timeZone, currency = excluded.currency, defaultLocale = excluded.defaultLocale,
                taxRateBasisPoints = excluded.taxRateBasisPoints, taxIncluded = excluded.taxIncluded,
                hours = excluded.hours, beaconUUID = excluded.beaconUUID, beaconMajor = excluded.beaconMajor,
                pickupSlotMinutes = excluded.pickupSlotMinutes, pickupCapacity = excluded.pickupCapacity,
                pickupCapacityUnit = excluded.pickupCapacityUnit, pickupLeadMinutes = excluded.pickupLeadMinutes,
                displayTicketWarningMinutes = excluded.displayTicketWarningMinutes,
                displayTicketLateMinutes = excluded.displayTicketLateMinutes,
                displayBoardReadyMinutes = excluded.displayBoardReadyMinutes, networks = excluded.networks,
                displayTicketAllowanceMinutes = excluded.displayTicketAllowanceMinutes, stations = excluded.stations,
                fireByPrepTime = excluded.fireByPrepTime,
                menuVersion = cafe.menuVersion + 1, updatedAt = excluded.updatedAt
            """, logger: logger)
        try await connection.run("DELETE FROM beacon WHERE cafeId = \(cafe.id)", logger: logger)
        let uuid = cafe.beaconRegion.uuid.uuidString
        let major = Int(cafe.beaconRegion.major)
        for beacon in cafe.beacons {
            let minor = Int(beacon.minor)
            if let other = try await connection.firstRow(
                "SELECT cafeId FROM beacon WHERE uuid = \(uuid) AND major = \(major) AND minor = \(minor)",
                logger: logger)
            {
                let owner = try StoredColumns.decode(other, table: "beacon", String.self)
                throw CanteenError(
                    .conflict, code: .beaconInUse,
                    message: "beacon \(uuid)/\(major)/\(minor) is registered to café '\(owner)'",
                    field: "beacons")
            }
            try await connection.run(
                """
                INSERT INTO beacon (uuid, major, minor, cafeId, label, measuredPower)
                VALUES (\(uuid), \(major), \(minor), \(cafe.id), \(beacon.label), \(beacon.measuredPower))
                """, logger: logger)
        }
    }

    @discardableResult
    static func bumpVersion(_ connection: PostgresConnection, cafeID: String, now: Date, logger: Logger) async throws
        -> Int64
    {
        guard
            let row = try await connection.firstRow(
                """
                UPDATE cafe SET menuVersion = menuVersion + 1, updatedAt = \(now) WHERE id = \(cafeID) RETURNING menuVersion
                """, logger: logger)
        else { return 0 }
        return try StoredColumns.decode(row, table: "cafe", Int64.self)
    }

    /// Replaces every menu row of the café; sold-out marks of vanished items are dropped.
    private static func writeMenu(
        _ connection: PostgresConnection, cafeID: String, menu: Menu,
        logger: Logger
    ) async throws {
        try await connection.run("DELETE FROM dayPart WHERE cafeId = \(cafeID)", logger: logger)
        try await connection.run("DELETE FROM menuItem WHERE cafeId = \(cafeID)", logger: logger)
        try await connection.run("DELETE FROM menuCategory WHERE cafeId = \(cafeID)", logger: logger)
        for (position, part) in menu.dayParts.enumerated() {
            try await connection.run(
                """
                INSERT INTO dayPart (cafeId, id, position, names, start, "end")
                VALUES (\(cafeID), \(part.id), \(position), \(try StoredJSON.text(part.names)), \(part.start.description),
                    \(part.end.description))
                """, logger: logger)
        }
        for (position, category) in menu.categories.enumerated() {
            try await connection.run(
                """
                INSERT INTO menuCategory (cafeId, id, position, names)
                VALUES (\(cafeID), \(category.id), \(position), \(try StoredJSON.text(category.names)))
                """, logger: logger)
        }
        for (position, item) in menu.items.enumerated() {
            try await connection.run(
                """
                INSERT INTO menuItem (cafeId, id, position, categoryId, names, descriptions, price, station, allergens,
                    dayParts, prepSeconds, dailyQuantity)
                VALUES (\(cafeID), \(item.id), \(position), \(item.category), \(try StoredJSON.text(item.names)),
                    \(try StoredJSON.text(item.descriptions)), \(item.price), \(item.station),
                    \(try StoredJSON.text(item.allergens)), \(try StoredJSON.text(item.dayParts)), \(item.prepSeconds),
                    \(item.dailyQuantity))
                """, logger: logger)
            for (groupPosition, group) in item.modifierGroups.enumerated() {
                try await connection.run(
                    """
                    INSERT INTO modifierGroup (cafeId, itemId, id, position, names, minSelections, maxSelections)
                    VALUES (\(cafeID), \(item.id), \(group.id), \(groupPosition), \(try StoredJSON.text(group.names)),
                        \(group.min), \(group.max))
                    """, logger: logger)
                for (optionPosition, option) in group.options.enumerated() {
                    try await connection.run(
                        """
                        INSERT INTO modifierOption (cafeId, itemId, groupId, id, position, names, priceDelta)
                        VALUES (\(cafeID), \(item.id), \(group.id), \(option.id), \(optionPosition),
                            \(try StoredJSON.text(option.names)), \(option.priceDelta))
                        """, logger: logger)
                }
            }
        }
        try await connection.run(
            """
            DELETE FROM soldOut WHERE cafeId = \(cafeID) AND itemId NOT IN (SELECT id FROM menuItem WHERE cafeId = \(cafeID))
            """, logger: logger)
    }
}

/// A café file's contents as one Sendable value (tuples are not).
private struct CafeDocumentValue: Sendable {
    let cafe: Cafe
    let menu: Menu
}
