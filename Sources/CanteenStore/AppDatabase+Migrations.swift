import GRDB

extension AppDatabase {
    /// The schema's history. A migration never changes once shipped: add a new one instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        #if DEBUG
        migrator.eraseDatabaseOnSchemaChange = false
        #endif

        migrator.registerMigration("v1: cafes, menus, sold-out marks, beacons, tokens") { db in
            try db.execute(sql: """
                CREATE TABLE cafe (
                    id TEXT PRIMARY KEY NOT NULL,
                    languages TEXT NOT NULL,
                    names TEXT NOT NULL,
                    timeZone TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    defaultLocale TEXT NOT NULL,
                    taxRateBasisPoints INTEGER NOT NULL,
                    taxIncluded BOOLEAN NOT NULL,
                    hours TEXT NOT NULL,
                    beaconUUID TEXT NOT NULL,
                    beaconMajor INTEGER NOT NULL,
                    pickupSlotMinutes INTEGER NOT NULL,
                    pickupCapacity INTEGER NOT NULL,
                    pickupCapacityUnit TEXT NOT NULL,
                    pickupLeadMinutes INTEGER NOT NULL,
                    menuVersion INTEGER NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                CREATE TABLE dayPart (
                    cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    names TEXT NOT NULL,
                    start TEXT NOT NULL,
                    "end" TEXT NOT NULL,
                    PRIMARY KEY (cafeId, id)
                );
                CREATE TABLE menuCategory (
                    cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    names TEXT NOT NULL,
                    PRIMARY KEY (cafeId, id)
                );
                CREATE TABLE menuItem (
                    cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    categoryId TEXT NOT NULL,
                    names TEXT NOT NULL,
                    descriptions TEXT NOT NULL,
                    price INTEGER NOT NULL CHECK (price >= 0),
                    station TEXT NOT NULL,
                    allergens TEXT NOT NULL,
                    dayParts TEXT NOT NULL,
                    PRIMARY KEY (cafeId, id),
                    FOREIGN KEY (cafeId, categoryId) REFERENCES menuCategory(cafeId, id) ON DELETE CASCADE
                );
                CREATE TABLE modifierGroup (
                    cafeId TEXT NOT NULL,
                    itemId TEXT NOT NULL,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    names TEXT NOT NULL,
                    minSelections INTEGER NOT NULL,
                    maxSelections INTEGER NOT NULL,
                    PRIMARY KEY (cafeId, itemId, id),
                    FOREIGN KEY (cafeId, itemId) REFERENCES menuItem(cafeId, id) ON DELETE CASCADE
                );
                CREATE TABLE modifierOption (
                    cafeId TEXT NOT NULL,
                    itemId TEXT NOT NULL,
                    groupId TEXT NOT NULL,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    names TEXT NOT NULL,
                    priceDelta INTEGER NOT NULL,
                    PRIMARY KEY (cafeId, itemId, groupId, id),
                    FOREIGN KEY (cafeId, itemId, groupId) REFERENCES modifierGroup(cafeId, itemId, id) ON DELETE CASCADE
                );
                CREATE TABLE soldOut (
                    cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                    itemId TEXT NOT NULL,
                    "until" DATETIME,
                    markedAt DATETIME NOT NULL,
                    PRIMARY KEY (cafeId, itemId)
                );
                CREATE TABLE beacon (
                    uuid TEXT NOT NULL,
                    major INTEGER NOT NULL,
                    minor INTEGER NOT NULL,
                    cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                    label TEXT NOT NULL,
                    measuredPower INTEGER NOT NULL,
                    PRIMARY KEY (uuid, major, minor)
                );
                CREATE INDEX beacon_on_cafeId ON beacon(cafeId);
                CREATE TABLE accessToken (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT,
                    role TEXT NOT NULL,
                    cafeId TEXT,
                    secretHash BLOB NOT NULL UNIQUE,
                    createdAt DATETIME NOT NULL,
                    revokedAt DATETIME
                );
                """)
        }
        migrator.registerMigration("v2: preferences") { db in
            try db.execute(sql: """
                CREATE TABLE userPreferences (
                    userId TEXT PRIMARY KEY NOT NULL,
                    document TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                CREATE TABLE sitePreferences (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL,
                    updatedAt DATETIME NOT NULL
                );
                """)
        }
        return migrator
    }
}
