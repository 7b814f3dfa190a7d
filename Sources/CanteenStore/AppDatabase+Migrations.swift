import GRDB

extension AppDatabase {
    /// The schema's history. A migration never changes once shipped: add a new one instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: cafes, menus, sold-out marks, beacons, tokens") { db in
            try db.execute(
                sql: """
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
        migrator.registerMigration("v2: orders, tickets, pickup capacity, idempotency keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE customerOrder (
                        id TEXT PRIMARY KEY NOT NULL,
                        cafeId TEXT NOT NULL REFERENCES cafe(id),
                        number INTEGER NOT NULL,
                        localDate TEXT NOT NULL,
                        customerName TEXT NOT NULL,
                        userId TEXT,
                        tokenId TEXT,
                        pickupStart DATETIME NOT NULL,
                        pickupEnd DATETIME NOT NULL,
                        subtotal INTEGER NOT NULL,
                        tax INTEGER NOT NULL,
                        total INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        capacityUnits INTEGER NOT NULL,
                        createdAt DATETIME NOT NULL,
                        cancelledAt DATETIME,
                        UNIQUE (cafeId, localDate, number)
                    );
                    CREATE INDEX customerOrder_on_userId_createdAt ON customerOrder(userId, createdAt);
                    CREATE TABLE orderLine (
                        orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        itemId TEXT NOT NULL,
                        names TEXT NOT NULL,
                        station TEXT NOT NULL,
                        quantity INTEGER NOT NULL,
                        unitPrice INTEGER NOT NULL,
                        lineTotal INTEGER NOT NULL,
                        options TEXT NOT NULL,
                        note TEXT,
                        PRIMARY KEY (orderId, position)
                    );
                    CREATE TABLE ticket (
                        id TEXT PRIMARY KEY NOT NULL,
                        orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
                        cafeId TEXT NOT NULL,
                        station TEXT NOT NULL,
                        status TEXT NOT NULL,
                        sequence INTEGER NOT NULL UNIQUE,
                        createdAt DATETIME NOT NULL,
                        updatedAt DATETIME NOT NULL
                    );
                    CREATE INDEX ticket_on_cafeId_sequence ON ticket(cafeId, sequence);
                    CREATE INDEX ticket_on_orderId ON ticket(orderId);
                    CREATE TABLE feedSequence (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        value INTEGER NOT NULL
                    );
                    INSERT INTO feedSequence (id, value) VALUES (1, 0);
                    CREATE TABLE pickupSlot (
                        cafeId TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        used INTEGER NOT NULL CHECK (used >= 0),
                        PRIMARY KEY (cafeId, start)
                    );
                    CREATE TABLE orderNumber (
                        cafeId TEXT NOT NULL,
                        localDate TEXT NOT NULL,
                        last INTEGER NOT NULL,
                        PRIMARY KEY (cafeId, localDate)
                    );
                    CREATE TABLE idempotencyKey (
                        tokenId TEXT NOT NULL,
                        key TEXT NOT NULL,
                        requestHash BLOB NOT NULL,
                        status INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        orderId TEXT,
                        createdAt DATETIME NOT NULL,
                        PRIMARY KEY (tokenId, key)
                    );
                    CREATE INDEX idempotencyKey_on_createdAt ON idempotencyKey(createdAt);
                    """)
        }

        migrator.registerMigration("v3: preferences") { db in
            try db.execute(
                sql: """
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

        migrator.registerMigration("v4: the language of stored order responses") { db in
            try db.execute(sql: "ALTER TABLE idempotencyKey ADD COLUMN contentLanguage TEXT")
        }
        migrator.registerMigration("v5: idempotency records keep the order and its answer's language, not the answer") {
            db in
            // Rows of `idempotencyKey` (answers stored as bytes) keep replaying until they are purged.
            try db.execute(
                sql: """
                    CREATE TABLE idempotencyRecord (
                        tokenId TEXT NOT NULL,
                        key TEXT NOT NULL,
                        requestHash BLOB NOT NULL,
                        orderId TEXT NOT NULL,
                        answerLanguage TEXT,
                        createdAt DATETIME NOT NULL,
                        PRIMARY KEY (tokenId, key)
                    );
                    CREATE INDEX idempotencyRecord_on_createdAt ON idempotencyRecord(createdAt);
                    """)
        }

        migrator.registerMigration("v6: badge cards as keyed hashes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE card (
                        identifierHash TEXT PRIMARY KEY NOT NULL,
                        technology TEXT NOT NULL,
                        userId TEXT NOT NULL,
                        displayName TEXT,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE INDEX card_userId ON card(userId);
                    """)
        }

        migrator.registerMigration("v7: coupons, and the discount an order redeemed") { db in
            try db.execute(
                sql: """
                    CREATE TABLE coupon (
                        id TEXT PRIMARY KEY NOT NULL,
                        label TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('amount', 'item')),
                        amount INTEGER,
                        currency TEXT,
                        itemId TEXT,
                        cafeId TEXT,
                        validFrom DATETIME,
                        validUntil DATETIME,
                        maxUses INTEGER NOT NULL CHECK (maxUses >= 1),
                        uses INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0 AND uses <= maxUses),
                        createdAt DATETIME NOT NULL,
                        revokedAt DATETIME,
                        CHECK ((kind = 'amount' AND amount > 0 AND currency IS NOT NULL) OR (kind = 'item' AND itemId IS NOT NULL))
                    );
                    ALTER TABLE customerOrder ADD COLUMN couponId TEXT REFERENCES coupon(id);
                    ALTER TABLE customerOrder ADD COLUMN discountLabel TEXT;
                    ALTER TABLE customerOrder ADD COLUMN discount INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX customerOrder_on_couponId ON customerOrder(couponId);
                    """)
        }

        migrator.registerMigration("v8: one-time codes for registering a card at a kiosk") { db in
            try db.execute(
                sql: """
                    CREATE TABLE cardEnrolment (
                        codeHash TEXT PRIMARY KEY NOT NULL,
                        userId TEXT NOT NULL,
                        displayName TEXT,
                        expiresAt DATETIME NOT NULL,
                        usedAt DATETIME
                    );
                    """)
        }

        migrator.registerMigration("v9: user tokens act for one user") { db in
            try db.execute(sql: "ALTER TABLE accessToken ADD COLUMN userId TEXT")
        }

        migrator.registerMigration("v10: café display settings (ticket age colours, pickup board)") { db in
            try db.execute(
                sql: """
                    ALTER TABLE cafe ADD COLUMN displayTicketWarningMinutes INTEGER NOT NULL DEFAULT 5;
                    ALTER TABLE cafe ADD COLUMN displayTicketLateMinutes INTEGER NOT NULL DEFAULT 8;
                    ALTER TABLE cafe ADD COLUMN displayBoardReadyMinutes INTEGER NOT NULL DEFAULT 10;
                    """)
        }

        migrator.registerMigration("v11: order events (the webhook outbox), webhook endpoints and deliveries") { db in
            // `orderEvent.sequence` is the feed sequence of the ticket change that caused the
            // event, taken in the same transaction: events commit in sequence order, so a reader
            // of `sequence > cursor` never skips one. `tickets` holds each ticket's status after
            // the change as a JSON object; NULL when the order was just placed (every ticket new).
            // A delivery is `pending` (due at `nextAttemptAt`, which is also the lease of an attempt
            // in flight), `held` (behind a pending event of the same order to the same endpoint),
            // `delivered` or `failed`; at most one per order and endpoint is pending at a time.
            try db.execute(
                sql: """
                    CREATE TABLE orderEvent (
                        sequence INTEGER PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL UNIQUE,
                        orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
                        cafeId TEXT NOT NULL,
                        type TEXT NOT NULL,
                        previousSequence INTEGER,
                        tickets TEXT,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE INDEX orderEvent_on_orderId_sequence ON orderEvent(orderId, sequence);
                    CREATE TABLE webhookEndpoint (
                        id TEXT PRIMARY KEY NOT NULL,
                        url TEXT NOT NULL,
                        cafeId TEXT REFERENCES cafe(id) ON DELETE CASCADE,
                        events TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        previousSecret TEXT,
                        previousSecretExpiresAt DATETIME,
                        cursor INTEGER NOT NULL,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE TABLE webhookDelivery (
                        endpointId TEXT NOT NULL REFERENCES webhookEndpoint(id) ON DELETE CASCADE,
                        eventSequence INTEGER NOT NULL REFERENCES orderEvent(sequence) ON DELETE CASCADE,
                        orderId TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL,
                        nextAttemptAt DATETIME NOT NULL,
                        firstAttemptAt DATETIME,
                        PRIMARY KEY (endpointId, eventSequence)
                    );
                    CREATE INDEX webhookDelivery_pending_on_nextAttemptAt ON webhookDelivery(nextAttemptAt)
                        WHERE state = 'pending';
                    CREATE INDEX webhookDelivery_open ON webhookDelivery(endpointId, state, orderId, eventSequence);
                    CREATE TABLE webhookAttempt (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        endpointId TEXT NOT NULL,
                        eventSequence INTEGER NOT NULL,
                        attemptedAt DATETIME NOT NULL,
                        statusCode INTEGER,
                        latencyMilliseconds INTEGER NOT NULL,
                        error TEXT,
                        FOREIGN KEY (endpointId, eventSequence) REFERENCES webhookDelivery(endpointId, eventSequence)
                            ON DELETE CASCADE
                    );
                    CREATE INDEX webhookAttempt_on_delivery ON webhookAttempt(endpointId, eventSequence);
                    """)
        }

        migrator.registerMigration("v12: change counters that caches follow") { db in
            // Every process writing tokens, cafés or beacons bumps its topic's counter (triggers, so no
            // writer can forget); a server reads the counters to forget what its caches hold.
            var sql = """
                CREATE TABLE storeChange (
                    topic TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL
                );
                INSERT INTO storeChange (topic, version) VALUES ('tokens', 0), ('cafes', 0);

                """
            for (table, topic) in [("accessToken", "tokens"), ("cafe", "cafes"), ("beacon", "cafes")] {
                for event in ["INSERT", "UPDATE", "DELETE"] {
                    sql += """
                        CREATE TRIGGER \(table)_\(event.lowercased())_changes AFTER \(event) ON \(table)
                        BEGIN UPDATE storeChange SET version = version + 1 WHERE topic = '\(topic)'; END;

                        """
                }
            }
            try db.execute(sql: sql)
        }

        migrator.registerMigration("v13: webhook attempts keep no receiver answers") { db in
            // Attempts used to keep up to 200 bytes of a receiver's error answer ("HTTP 500: <body>"),
            // shown in the deliveries: an internal service's answers could be read through a webhook.
            // Only the status is kept now; this scrubs what older versions stored.
            try db.execute(
                sql: """
                    UPDATE webhookAttempt SET error = 'HTTP ' || CAST(statusCode AS TEXT)
                    WHERE statusCode IS NOT NULL AND error LIKE 'HTTP %'
                    """)
        }

        migrator.registerMigration("v14: sign-in sessions, sign-ins under way, café networks") { db in
            // A session's and a sign-in's secrets are stored only as SHA-256 hashes. A sign-in under
            // way lives at most 10 minutes and is deleted when its callback reads it.
            try db.execute(
                sql: """
                    ALTER TABLE cafe ADD COLUMN networks TEXT NOT NULL DEFAULT '[]';
                    CREATE TABLE userSession (
                        id TEXT PRIMARY KEY NOT NULL,
                        secretHash BLOB NOT NULL UNIQUE,
                        userId TEXT NOT NULL,
                        role TEXT NOT NULL,
                        name TEXT,
                        email TEXT,
                        createdAt DATETIME NOT NULL,
                        lastSeenAt DATETIME NOT NULL
                    );
                    CREATE INDEX userSession_on_userId ON userSession(userId);
                    CREATE INDEX userSession_on_lastSeenAt ON userSession(lastSeenAt);
                    CREATE TABLE loginAttempt (
                        browserHash BLOB PRIMARY KEY NOT NULL,
                        state TEXT NOT NULL,
                        nonce TEXT NOT NULL,
                        codeVerifier TEXT NOT NULL,
                        next TEXT NOT NULL,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE INDEX loginAttempt_on_createdAt ON loginAttempt(createdAt);
                    """)
        }

        migrator.registerMigration("v15: kitchen timing and daily quantities") { db in
            // A ticket's kitchen times: `fireAt` is a held ticket's fire time (kept after it fired),
            // `firedAt` when it reached its station (at once for every ticket written before), then
            // `startedAt` (preparing) and `finishedAt` (ready). `dailyStock` holds what is left of
            // a limited item on a café-local day once an order took from it or ops set it;
            // `stockTaken` what each order took, given back when it is cancelled.
            try db.execute(
                sql: """
                    ALTER TABLE ticket ADD COLUMN prepSeconds INTEGER;
                    ALTER TABLE ticket ADD COLUMN fireAt DATETIME;
                    ALTER TABLE ticket ADD COLUMN firedAt DATETIME;
                    ALTER TABLE ticket ADD COLUMN startedAt DATETIME;
                    ALTER TABLE ticket ADD COLUMN finishedAt DATETIME;
                    UPDATE ticket SET firedAt = createdAt;
                    CREATE INDEX ticket_held_on_fireAt ON ticket(fireAt) WHERE status = 'held';
                    CREATE INDEX ticket_open_on_cafeId ON ticket(cafeId, station)
                        WHERE status IN ('held', 'new', 'preparing', 'ready');
                    CREATE INDEX ticket_on_cafeId_finishedAt ON ticket(cafeId, finishedAt) WHERE finishedAt IS NOT NULL;
                    ALTER TABLE customerOrder ADD COLUMN readyAt DATETIME;
                    ALTER TABLE cafe ADD COLUMN stations TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE cafe ADD COLUMN fireByPrepTime BOOLEAN NOT NULL DEFAULT 1;
                    ALTER TABLE cafe ADD COLUMN displayTicketAllowanceMinutes INTEGER NOT NULL DEFAULT 3;
                    ALTER TABLE menuItem ADD COLUMN prepSeconds INTEGER;
                    ALTER TABLE menuItem ADD COLUMN dailyQuantity INTEGER;
                    CREATE TABLE dailyStock (
                        cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
                        itemId TEXT NOT NULL,
                        localDate TEXT NOT NULL,
                        remaining INTEGER NOT NULL CHECK (remaining >= 0),
                        PRIMARY KEY (cafeId, itemId, localDate)
                    );
                    CREATE TABLE stockTaken (
                        orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
                        itemId TEXT NOT NULL,
                        localDate TEXT NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity > 0),
                        PRIMARY KEY (orderId, itemId)
                    );
                    """)
        }

        migrator.registerMigration("v16: the audit log, tokens' last use, refused orders") { db in
            // `auditEntry` is written by the stores in the transaction of each change it records.
            // `tokenUse` is apart from `accessToken` so that noting a use does not make every
            // server forget its cached tokens (the triggers of v12). The kitchen report reads when a
            // ticket was ready from v15's `finishedAt`; the sales report reads orders by
            // (cafeId, localDate) through the UNIQUE index of v2; the windows report by pickup start.
            try db.execute(
                sql: """
                    CREATE TABLE auditEntry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at DATETIME NOT NULL,
                        tokenId TEXT,
                        tokenName TEXT,
                        role TEXT NOT NULL,
                        userId TEXT,
                        action TEXT NOT NULL,
                        targetKind TEXT NOT NULL,
                        targetId TEXT NOT NULL,
                        cafeId TEXT,
                        changes TEXT NOT NULL
                    );
                    CREATE INDEX auditEntry_on_cafeId_id ON auditEntry(cafeId, id);
                    CREATE TABLE tokenUse (
                        tokenId TEXT PRIMARY KEY NOT NULL,
                        lastUsedAt DATETIME NOT NULL
                    );
                    CREATE TABLE pickupRefusal (
                        cafeId TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        refused INTEGER NOT NULL,
                        PRIMARY KEY (cafeId, start)
                    );
                    CREATE INDEX customerOrder_on_cafeId_pickupStart ON customerOrder(cafeId, pickupStart);
                    """)
        }
        migrator.registerMigration("v17: the open tickets' index without an IN list") { db in
            // SQLite evaluates a partial index's WHERE each time it writes a row of the table, and
            // it builds a temporary b-tree for an IN list of more than two values: every ticket
            // written paid for one, every status move for two (about 17,000 instructions each).
            // The same predicate written with ORs is a few comparisons. The queries that read open
            // tickets name the same expression (`TicketStore.openPredicate`), as SQLite's planner needs
            // to use the index.
            try db.execute(
                sql: """
                    DROP INDEX ticket_open_on_cafeId;
                    CREATE INDEX ticket_open_on_cafeId ON ticket(cafeId, station)
                        WHERE (status = 'held' OR status = 'new' OR status = 'preparing' OR status = 'ready');
                    """)
        }
        migrator.registerMigration("v18: the orders' user and coupon indexes without the orders that have neither") {
            db in
            // A kiosk's order has no user and most orders no coupon: indexing their NULLs cost two
            // b-tree inserts an order for rows no query looks up. Every query by user or coupon
            // compares with `=`, which implies NOT NULL, so SQLite's planner still uses them.
            try db.execute(
                sql: """
                    DROP INDEX customerOrder_on_userId_createdAt;
                    CREATE INDEX customerOrder_on_userId_createdAt ON customerOrder(userId, createdAt)
                        WHERE userId IS NOT NULL;
                    DROP INDEX customerOrder_on_couponId;
                    CREATE INDEX customerOrder_on_couponId ON customerOrder(couponId) WHERE couponId IS NOT NULL;
                    """)
        }
        return migrator
    }
}
