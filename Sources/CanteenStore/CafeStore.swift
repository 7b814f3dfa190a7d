import CanteenCore
import CanteenJSON
import CanteenPersistence
import Foundation
import GRDB
import Synchronization

/// The SQLite implementation of `CafeRepository`.
///
/// Assembled menus are cached by café and version: a read costs one indexed query while the
/// menu is unchanged, and every write moves the version, so a stale menu is never served.
public final class CafeStore: CafeRepository {
    let database: AppDatabase
    private let clock: @Sendable () -> Date
    private let menuCache = Mutex<[String: CafeMenu]>([:])

    public init(database: AppDatabase, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = clock
        recentCafes = FollowingCache(following: .cafes, in: database.changes)
    }

    // MARK: - Reads

    public func cafes() async throws -> [VersionedCafe] {
        try await database.writer.read { db in
            let beacons = try Self.beaconsByCafe(db, cafeID: nil)
            return try CafeRecord.order(Column("id")).fetchAllNamingRows(db).map {
                VersionedCafe(cafe: try $0.cafe(beacons: beacons[$0.id] ?? []), menuVersion: $0.menuVersion)
            }
        }
    }

    /// Cafés by id until a café changes: every request about a café reads it. This store's own
    /// writes forget the café at once; another process's (`canteen menus import`) as soon as
    /// the change watcher reads the counters.
    let recentCafes: FollowingCache<String, VersionedCafe>

    public func cafe(id: String) async throws -> VersionedCafe? {
        try await recentCafes.value(for: id) {
            try await database.writer.read { db in try Self.fetchCafe(db, id: id) }
        }
    }

    public func menu(cafeID: String) async throws -> CafeMenu? {
        try await database.writer.read { db in try self.menu(db, cafeID: cafeID) }
    }

    /// The café's menu inside a transaction: one query while the cached version is current.
    func menu(_ db: Database, cafeID: String) throws -> CafeMenu? {
        let versionQuery = try db.cachedStatement(sql: "SELECT menuVersion FROM cafe WHERE id = ?")
        guard let version = try Int64.fetchOne(versionQuery, arguments: [cafeID]) else { return nil }
        if let cached = menuCache.withLock({ $0[cafeID] }), cached.version == version {
            return cached
        }
        guard let loaded = try Self.fetchMenu(db, cafeID: cafeID) else { return nil }
        menuCache.withLock { cache in
            if (cache[cafeID]?.version ?? -1) < loaded.version { cache[cafeID] = loaded }
        }
        return loaded
    }

    static func fetchCafe(_ db: Database, id: String) throws -> VersionedCafe? {
        guard let record = try CafeRecord.filter(key: id).fetchOneNamingRow(db) else { return nil }
        let beacons = try beaconsByCafe(db, cafeID: id)
        return VersionedCafe(cafe: try record.cafe(beacons: beacons[id] ?? []), menuVersion: record.menuVersion)
    }

    private static func beaconsByCafe(_ db: Database, cafeID: String?) throws -> [String: [BeaconPlacement]] {
        var request = BeaconRecord.order(Column("cafeId"), Column("minor"))
        if let cafeID { request = request.filter(Column("cafeId") == cafeID) }
        return try Dictionary(grouping: request.fetchAllNamingRows(db), by: \.cafeId).mapValues { records in
            records.map {
                BeaconPlacement(minor: UInt16(clamping: $0.minor), label: $0.label, measuredPower: $0.measuredPower)
            }
        }
    }

    static func fetchMenu(_ db: Database, cafeID: String) throws -> CafeMenu? {
        guard let cafe = try fetchCafe(db, id: cafeID) else { return nil }
        let byPosition = Column("position")
        let dayParts = try DayPartRecord.filter(Column("cafeId") == cafeID).order(byPosition).fetchAllNamingRows(db)
        let categories = try MenuCategoryRecord.filter(Column("cafeId") == cafeID).order(byPosition).fetchAllNamingRows(
            db)
        let items = try MenuItemRecord.filter(Column("cafeId") == cafeID).order(byPosition).fetchAllNamingRows(db)
        let groups = try ModifierGroupRecord.filter(Column("cafeId") == cafeID).order(byPosition).fetchAllNamingRows(db)
        let options = try ModifierOptionRecord.filter(Column("cafeId") == cafeID).order(byPosition).fetchAllNamingRows(
            db)
        let soldOut = try SoldOutRecord.filter(Column("cafeId") == cafeID).fetchAllNamingRows(db)

        let optionsByGroup = Dictionary(grouping: options) { "\($0.itemId)/\($0.groupId)" }
        let groupsByItem = Dictionary(grouping: groups, by: \.itemId)
        let menu = Menu(
            dayParts: try dayParts.map {
                guard let start = LocalTime(parsing: $0.start), let end = LocalTime(parsing: $0.end) else {
                    throw StoredRow.invalid(
                        table: DayPartRecord.databaseTableName, id: "\(cafeID)/\($0.id)",
                        "'\($0.start)'–'\($0.end)' are not times of day")
                }
                return DayPart(id: $0.id, names: $0.names, start: start, end: end)
            },
            categories: categories.map { MenuCategory(id: $0.id, names: $0.names) },
            items: items.map { item in
                MenuItem(
                    id: item.id, category: item.categoryId, names: item.names, descriptions: item.descriptions,
                    price: item.price, station: item.station, allergens: item.allergens, dayParts: item.dayParts,
                    modifierGroups: (groupsByItem[item.id] ?? []).map { group in
                        ModifierGroup(
                            id: group.id, names: group.names, min: group.minSelections, max: group.maxSelections,
                            options: (optionsByGroup["\(item.id)/\(group.id)"] ?? []).map {
                                ModifierOption(id: $0.id, names: $0.names, priceDelta: $0.priceDelta)
                            })
                    },
                    prepSeconds: item.prepSeconds, dailyQuantity: item.dailyQuantity)
            })
        return CafeMenu(
            cafe: cafe.cafe, menu: menu,
            soldOut: Dictionary(
                uniqueKeysWithValues: soldOut.map { ($0.itemId, SoldOut(itemID: $0.itemId, until: $0.until)) }),
            version: cafe.menuVersion)
    }

    // MARK: - Writes

    public func saveCafe(_ cafe: Cafe, audit: AuditEntry?) async throws -> VersionedCafe {
        let now = clock()
        defer { recentCafes.invalidate(cafe.id) }
        return try await database.writer.write { db in
            let before = try Self.fetchCafe(db, id: cafe.id).map { CafeDocument.render($0.cafe) }
            try Self.upsertCafe(db, cafe, now: now)
            let saved = try Self.fetchCafe(db, id: cafe.id)!
            try AuditStore.record(audit, before: before, after: CafeDocument.render(saved.cafe), at: now, db)
            return saved
        }
    }

    public func replaceMenu(cafeID: String, with menu: Menu, audit: AuditEntry?) async throws -> Int64 {
        let now = clock()
        defer { recentCafes.invalidate(cafeID) }
        return try await database.writer.write { db in
            guard try CafeRecord.exists(db, key: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
            let before =
                try audit == nil ? nil : Self.fetchMenu(db, cafeID: cafeID).map { CafeDocument.render($0.menu) }
            try Self.writeMenu(db, cafeID: cafeID, menu: menu)
            try AuditStore.record(audit, before: before, after: CafeDocument.render(menu), at: now, db)
            return try Self.bumpVersion(db, cafeID: cafeID, now: now)
        }
    }

    public func updateItem(
        cafeID: String, itemID: String, changes: [MenuItemChange],
        audit: AuditEntry?
    ) async throws -> Int64 {
        let now = clock()
        defer { recentCafes.invalidate(cafeID) }
        return try await database.writer.write { db in
            guard try CafeRecord.exists(db, key: cafeID) else { throw CanteenError.notFound(.cafe, cafeID) }
            guard var item = try MenuItemRecord.filter(key: ["cafeId": cafeID, "id": itemID]).fetchOneNamingRow(db)
            else {
                throw CanteenError.notFound(.item, itemID)
            }
            let before = try Self.auditedItem(db, cafeID: cafeID, item: item)
            for change in changes {
                switch change {
                case .soldOut(true, let until):
                    try SoldOutRecord(cafeId: cafeID, itemId: itemID, until: until, markedAt: now).upsert(db)
                case .soldOut(false, _):
                    try SoldOutRecord.deleteOne(db, key: ["cafeId": cafeID, "itemId": itemID])
                case .price(let price):
                    item.price = price
                    try item.update(db)
                }
            }
            try AuditStore.record(
                audit, before: before, after: try Self.auditedItem(db, cafeID: cafeID, item: item),
                at: now, db)
            return try Self.bumpVersion(db, cafeID: cafeID, now: now)
        }
    }

    /// What the audit log shows of an item change: its price and sold-out mark.
    private static func auditedItem(_ db: Database, cafeID: String, item: MenuItemRecord) throws -> JSONValue {
        let mark = try SoldOutRecord.filter(key: ["cafeId": cafeID, "itemId": item.id]).fetchOne(db)
        return MenuItemChange.audited(price: item.price, soldOut: mark != nil, until: mark?.until)
    }

    public func importCafes(_ documents: [(cafe: Cafe, menu: Menu)]) async throws {
        let now = clock()
        defer { recentCafes.removeAll() }
        try await database.writer.write { db in
            for document in documents {
                try Self.upsertCafe(db, document.cafe, now: now)
                try Self.writeMenu(db, cafeID: document.cafe.id, menu: document.menu)
            }
        }
    }

    public func importCafesIfEmpty(_ documents: [(cafe: Cafe, menu: Menu)]) async throws -> Bool {
        let now = clock()
        defer { recentCafes.removeAll() }
        return try await database.writer.write { db in
            guard try CafeRecord.fetchCount(db) == 0 else { return false }
            for document in documents {
                try Self.upsertCafe(db, document.cafe, now: now)
                try Self.writeMenu(db, cafeID: document.cafe.id, menu: document.menu)
            }
            return true
        }
    }

    public func deleteCafe(id: String, audit: AuditEntry?) async throws {
        let now = clock()
        defer { recentCafes.invalidate(id) }
        try await database.writer.write { db in
            guard let existing = try Self.fetchCafe(db, id: id) else { throw CanteenError.notFound(.cafe, id) }
            let orders =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customerOrder WHERE cafeId = ?", arguments: [id]) ?? 0
            guard orders == 0 else {
                throw CanteenError(
                    .conflict, code: .cafeInUse,
                    message: "café '\(id)' has \(orders) orders; a café with orders is never deleted",
                    parameters: ["cafe": id, "orders": "\(orders)"])
            }
            // Menu rows, sold-out marks and beacons go with the café (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM pickupSlot WHERE cafeId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM orderNumber WHERE cafeId = ?", arguments: [id])
            try CafeRecord.deleteOne(db, key: id)
            try AuditStore.record(audit, before: CafeDocument.render(existing.cafe), after: nil, at: now, db)
        }
        menuCache.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Inserts or updates the café row and its beacons; the version moves past any earlier one.
    private static func upsertCafe(_ db: Database, _ cafe: Cafe, now: Date) throws {
        let previous = try Int64.fetchOne(db, sql: "SELECT menuVersion FROM cafe WHERE id = ?", arguments: [cafe.id])
        try CafeRecord(cafe, menuVersion: (previous ?? 0) + 1, updatedAt: now).upsert(db)
        try BeaconRecord.filter(Column("cafeId") == cafe.id).deleteAll(db)
        let uuid = cafe.beaconRegion.uuid.uuidString
        for beacon in cafe.beacons {
            let record = BeaconRecord(
                uuid: uuid, major: Int(cafe.beaconRegion.major), minor: Int(beacon.minor),
                cafeId: cafe.id, label: beacon.label, measuredPower: beacon.measuredPower)
            if let other = try BeaconRecord.filter(key: ["uuid": uuid, "major": record.major, "minor": record.minor])
                .fetchOneNamingRow(db),
                other.cafeId != cafe.id
            {
                throw CanteenError(
                    .conflict, code: .beaconInUse,
                    message: "beacon \(uuid)/\(record.major)/\(record.minor) is registered to café '\(other.cafeId)'",
                    field: "beacons")
            }
            try record.insert(db)
        }
    }

    @discardableResult
    static func bumpVersion(_ db: Database, cafeID: String, now: Date) throws -> Int64 {
        try db.execute(
            sql: "UPDATE cafe SET menuVersion = menuVersion + 1, updatedAt = ? WHERE id = ?",
            arguments: [now, cafeID])
        return try Int64.fetchOne(db, sql: "SELECT menuVersion FROM cafe WHERE id = ?", arguments: [cafeID]) ?? 0
    }

    /// Replaces every menu row of the café; sold-out marks of vanished items are dropped.
    private static func writeMenu(_ db: Database, cafeID: String, menu: Menu) throws {
        try DayPartRecord.filter(Column("cafeId") == cafeID).deleteAll(db)
        try MenuItemRecord.filter(Column("cafeId") == cafeID).deleteAll(db)
        try MenuCategoryRecord.filter(Column("cafeId") == cafeID).deleteAll(db)
        for (position, part) in menu.dayParts.enumerated() {
            try DayPartRecord(
                cafeId: cafeID, id: part.id, position: position, names: part.names,
                start: part.start.description, end: part.end.description
            ).insert(db)
        }
        for (position, category) in menu.categories.enumerated() {
            try MenuCategoryRecord(cafeId: cafeID, id: category.id, position: position, names: category.names).insert(
                db)
        }
        for (position, item) in menu.items.enumerated() {
            try MenuItemRecord(
                cafeId: cafeID, id: item.id, position: position, categoryId: item.category,
                names: item.names, descriptions: item.descriptions, price: item.price,
                station: item.station, allergens: item.allergens, dayParts: item.dayParts,
                prepSeconds: item.prepSeconds, dailyQuantity: item.dailyQuantity
            ).insert(db)
            for (groupPosition, group) in item.modifierGroups.enumerated() {
                try ModifierGroupRecord(
                    cafeId: cafeID, itemId: item.id, id: group.id, position: groupPosition,
                    names: group.names, minSelections: group.min, maxSelections: group.max
                ).insert(db)
                for (optionPosition, option) in group.options.enumerated() {
                    try ModifierOptionRecord(
                        cafeId: cafeID, itemId: item.id, groupId: group.id, id: option.id,
                        position: optionPosition, names: option.names,
                        priceDelta: option.priceDelta
                    ).insert(db)
                }
            }
        }
        try db.execute(
            sql: "DELETE FROM soldOut WHERE cafeId = ? AND itemId NOT IN (SELECT id FROM menuItem WHERE cafeId = ?)",
            arguments: [cafeID, cafeID])
    }
}
