import CanteenCore
import CanteenPersistence
import Crypto
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema's history: numbered migrations, never edited once shipped (add a new
/// one instead). Table and column names are SQLite's, unquoted (PostgreSQL folds them to lower
/// case), so the same SQL reads both engines and `canteen db copy` maps tables one to one.
///
/// All pending migrations run in one transaction under an advisory lock: servers starting
/// together wait for each other and the second finds nothing left to do.
enum Migrations {
    struct Migration {
        let version: Int
        let name: String
        /// One statement each (the extended query protocol takes one at a time).
        let statements: [String]
    }

    /// The advisory lock taken (for the transaction) while migrating: "CANTEEN1" as 8 bytes.
    static let lockKey: Int64 = 0x43_41_4E_54_45_45_4E_31

    static let all: [Migration] = [
        Migration(
            version: 1,
            name: "cafes, menus, beacons, tokens, orders, tickets, capacity, idempotency, preferences, cards",
            statements: statements(schemaV1)),
        Migration(version: 2, name: "change notifications for tickets, tokens and cafés", statements: notificationsV2),
        Migration(
            version: 3,
            name: "coupons and order discounts, card enrolments, user tokens, café display settings, "
                + "order events and webhooks, the server key", statements: statements(schemaV3)),
        Migration(version: 4, name: "webhook attempts keep no receiver answers", statements: [scrubWebhookAnswersV4]),
        Migration(
            version: 5, name: "sign-in sessions, sign-ins under way, café networks", statements: statements(schemaV5)),
        Migration(
            version: 6, name: "kitchen timing (prep times, held tickets, ready times) and daily quantities",
            statements: statements(schemaV6)),
        Migration(
            version: 7, name: "the audit log, tokens' last use, refused orders", statements: statements(consoleV7)),
        Migration(
            version: 8, name: "the orders' user and coupon indexes without the orders that have neither",
            statements: statements(orderIndexesV8)),
    ]

    /// Applies every migration the database lacks; refuses a database migrated by a newer Canteen.
    /// Returns the server key (made here, under the lock, when the database has none yet).
    @discardableResult
    static func run(on database: PostgresDatabase) async throws -> [UInt8] {
        let logger = database.logger
        return try await database.client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS canteenMigration (
                        version BIGINT PRIMARY KEY,
                        name TEXT NOT NULL,
                        appliedAt TIMESTAMPTZ NOT NULL DEFAULT now()
                    )
                    """, logger: logger)
                var applied: [Int: String] = [:]
                for try await (version, name) in try await connection.query(
                    "SELECT version, name FROM canteenMigration", logger: logger
                ).decode((Int, String).self) {
                    applied[version] = name
                }
                if let newest = applied.keys.max(), newest > all.count {
                    throw CanteenError(
                        .internal, code: .internalError,
                        message:
                            "the database \(database.url) has schema version \(newest); this Canteen knows up to \(all.count)"
                    )
                }
                for migration in all where applied[migration.version] == nil {
                    logger.notice("migrating \(database.url) to v\(migration.version): \(migration.name)")
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        """
                        INSERT INTO canteenMigration (version, name) VALUES (\(migration.version), \(migration.name))
                        """, logger: logger)
                }
                // 32 random bytes from the system's generator, the same for every server from now on.
                let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
                try await connection.query(
                    """
                    INSERT INTO serverKey (id, key) VALUES (1, \(Data(fresh))) ON CONFLICT (id) DO NOTHING
                    """, logger: logger)
                var key: [UInt8]?
                for try await stored in try await connection.query(
                    "SELECT key FROM serverKey WHERE id = 1", logger: logger
                ).decode(Data.self) {
                    key = Array(stored)
                }
                guard let key, key.count >= 32 else {
                    throw StoredRow.invalid(table: "serverKey", id: "1", "the key is missing or shorter than 32 bytes")
                }
                try await connection.query("COMMIT", logger: logger)
                return key
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    // MARK: - v1

    static let schemaV1 = """
        CREATE TABLE cafe (
            id TEXT PRIMARY KEY,
            languages TEXT NOT NULL,
            names TEXT NOT NULL,
            timeZone TEXT NOT NULL,
            currency TEXT NOT NULL,
            defaultLocale TEXT NOT NULL,
            taxRateBasisPoints BIGINT NOT NULL,
            taxIncluded BOOLEAN NOT NULL,
            hours TEXT NOT NULL,
            beaconUUID TEXT NOT NULL,
            beaconMajor BIGINT NOT NULL,
            pickupSlotMinutes BIGINT NOT NULL,
            pickupCapacity BIGINT NOT NULL,
            pickupCapacityUnit TEXT NOT NULL,
            pickupLeadMinutes BIGINT NOT NULL,
            menuVersion BIGINT NOT NULL,
            updatedAt TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE dayPart (
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            position BIGINT NOT NULL,
            names TEXT NOT NULL,
            start TEXT NOT NULL,
            "end" TEXT NOT NULL,
            PRIMARY KEY (cafeId, id)
        );
        CREATE TABLE menuCategory (
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            position BIGINT NOT NULL,
            names TEXT NOT NULL,
            PRIMARY KEY (cafeId, id)
        );
        CREATE TABLE menuItem (
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            position BIGINT NOT NULL,
            categoryId TEXT NOT NULL,
            names TEXT NOT NULL,
            descriptions TEXT NOT NULL,
            price BIGINT NOT NULL CHECK (price >= 0),
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
            position BIGINT NOT NULL,
            names TEXT NOT NULL,
            minSelections BIGINT NOT NULL,
            maxSelections BIGINT NOT NULL,
            PRIMARY KEY (cafeId, itemId, id),
            FOREIGN KEY (cafeId, itemId) REFERENCES menuItem(cafeId, id) ON DELETE CASCADE
        );
        CREATE TABLE modifierOption (
            cafeId TEXT NOT NULL,
            itemId TEXT NOT NULL,
            groupId TEXT NOT NULL,
            id TEXT NOT NULL,
            position BIGINT NOT NULL,
            names TEXT NOT NULL,
            priceDelta BIGINT NOT NULL,
            PRIMARY KEY (cafeId, itemId, groupId, id),
            FOREIGN KEY (cafeId, itemId, groupId) REFERENCES modifierGroup(cafeId, itemId, id) ON DELETE CASCADE
        );
        CREATE TABLE soldOut (
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            itemId TEXT NOT NULL,
            "until" TIMESTAMPTZ,
            markedAt TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (cafeId, itemId)
        );
        CREATE TABLE beacon (
            uuid TEXT NOT NULL,
            major BIGINT NOT NULL,
            minor BIGINT NOT NULL,
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            label TEXT NOT NULL,
            measuredPower BIGINT NOT NULL,
            PRIMARY KEY (uuid, major, minor)
        );
        CREATE INDEX beacon_on_cafeId ON beacon(cafeId);
        CREATE TABLE accessToken (
            id TEXT PRIMARY KEY,
            name TEXT,
            role TEXT NOT NULL,
            cafeId TEXT,
            secretHash BYTEA NOT NULL UNIQUE,
            createdAt TIMESTAMPTZ NOT NULL,
            revokedAt TIMESTAMPTZ
        );
        CREATE TABLE customerOrder (
            id TEXT PRIMARY KEY,
            cafeId TEXT NOT NULL REFERENCES cafe(id),
            number BIGINT NOT NULL,
            localDate TEXT NOT NULL,
            customerName TEXT NOT NULL,
            userId TEXT,
            tokenId TEXT,
            pickupStart TIMESTAMPTZ NOT NULL,
            pickupEnd TIMESTAMPTZ NOT NULL,
            subtotal BIGINT NOT NULL,
            tax BIGINT NOT NULL,
            total BIGINT NOT NULL,
            currency TEXT NOT NULL,
            capacityUnits BIGINT NOT NULL,
            createdAt TIMESTAMPTZ NOT NULL,
            cancelledAt TIMESTAMPTZ,
            UNIQUE (cafeId, localDate, number)
        );
        CREATE INDEX customerOrder_on_userId_createdAt ON customerOrder(userId, createdAt);
        CREATE TABLE orderLine (
            orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            itemId TEXT NOT NULL,
            names TEXT NOT NULL,
            station TEXT NOT NULL,
            quantity BIGINT NOT NULL,
            unitPrice BIGINT NOT NULL,
            lineTotal BIGINT NOT NULL,
            options TEXT NOT NULL,
            note TEXT,
            PRIMARY KEY (orderId, position)
        );
        CREATE TABLE ticket (
            id TEXT PRIMARY KEY,
            orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
            cafeId TEXT NOT NULL,
            station TEXT NOT NULL,
            status TEXT NOT NULL,
            sequence BIGINT NOT NULL UNIQUE,
            createdAt TIMESTAMPTZ NOT NULL,
            updatedAt TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX ticket_on_cafeId_sequence ON ticket(cafeId, sequence);
        CREATE INDEX ticket_on_orderId ON ticket(orderId);
        -- The feed's position: one row whose UPDATE each ticket-writing transaction makes last,
        -- so its row lock orders commits by sequence (a SEQUENCE would not: see PostgresTicketStore).
        CREATE TABLE feedSequence (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            value BIGINT NOT NULL
        );
        INSERT INTO feedSequence (id, value) VALUES (1, 0);
        CREATE TABLE pickupSlot (
            cafeId TEXT NOT NULL,
            start BIGINT NOT NULL,
            used BIGINT NOT NULL CHECK (used >= 0),
            PRIMARY KEY (cafeId, start)
        );
        CREATE TABLE orderNumber (
            cafeId TEXT NOT NULL,
            localDate TEXT NOT NULL,
            last BIGINT NOT NULL,
            PRIMARY KEY (cafeId, localDate)
        );
        -- Keys stored before orders were rendered after commit (SQLite v2–v4), kept for their replays.
        CREATE TABLE idempotencyKey (
            tokenId TEXT NOT NULL,
            key TEXT NOT NULL,
            requestHash BYTEA NOT NULL,
            status BIGINT NOT NULL,
            body BYTEA NOT NULL,
            orderId TEXT,
            createdAt TIMESTAMPTZ NOT NULL,
            contentLanguage TEXT,
            PRIMARY KEY (tokenId, key)
        );
        CREATE INDEX idempotencyKey_on_createdAt ON idempotencyKey(createdAt);
        CREATE TABLE idempotencyRecord (
            tokenId TEXT NOT NULL,
            key TEXT NOT NULL,
            requestHash BYTEA NOT NULL,
            orderId TEXT NOT NULL,
            answerLanguage TEXT,
            createdAt TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (tokenId, key)
        );
        CREATE INDEX idempotencyRecord_on_createdAt ON idempotencyRecord(createdAt);
        CREATE TABLE userPreferences (
            userId TEXT PRIMARY KEY,
            document TEXT NOT NULL,
            version BIGINT NOT NULL,
            updatedAt TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE sitePreferences (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updatedAt TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE card (
            identifierHash TEXT PRIMARY KEY,
            technology TEXT NOT NULL,
            userId TEXT NOT NULL,
            displayName TEXT,
            createdAt TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX card_userId ON card(userId);
        """

    // MARK: - v2

    /// Statement triggers announce every change at commit on one channel, whoever wrote it
    /// (a server, the command line, `psql`): `tickets` when the feed moved, `tokens`, `cafes`.
    static let notificationsV2 = [
        """
        CREATE FUNCTION canteen_announce() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('canteen_changes', TG_ARGV[0]);
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER feedSequence_announce AFTER UPDATE ON feedSequence
            FOR EACH STATEMENT EXECUTE FUNCTION canteen_announce('tickets')
        """,
        """
        CREATE TRIGGER accessToken_announce AFTER INSERT OR UPDATE OR DELETE ON accessToken
            FOR EACH STATEMENT EXECUTE FUNCTION canteen_announce('tokens')
        """,
        """
        CREATE TRIGGER cafe_announce AFTER INSERT OR UPDATE OR DELETE ON cafe
            FOR EACH STATEMENT EXECUTE FUNCTION canteen_announce('cafes')
        """,
        """
        CREATE TRIGGER beacon_announce AFTER INSERT OR UPDATE OR DELETE ON beacon
            FOR EACH STATEMENT EXECUTE FUNCTION canteen_announce('cafes')
        """,
    ]

    // MARK: - v3

    /// What SQLite's v7–v11 added (coupons, card enrolments, user tokens, display settings, the
    /// order-event outbox and webhooks), and the key every server shares for card hashes and
    /// coupon signatures (one row, made by the first server that migrates).
    static let schemaV3 = """
        CREATE TABLE coupon (
            id TEXT PRIMARY KEY,
            label TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('amount', 'item')),
            amount BIGINT,
            currency TEXT,
            itemId TEXT,
            cafeId TEXT,
            validFrom TIMESTAMPTZ,
            validUntil TIMESTAMPTZ,
            maxUses BIGINT NOT NULL CHECK (maxUses >= 1),
            uses BIGINT NOT NULL DEFAULT 0 CHECK (uses >= 0 AND uses <= maxUses),
            createdAt TIMESTAMPTZ NOT NULL,
            revokedAt TIMESTAMPTZ,
            CHECK ((kind = 'amount' AND amount > 0 AND currency IS NOT NULL) OR (kind = 'item' AND itemId IS NOT NULL))
        );
        ALTER TABLE customerOrder ADD COLUMN couponId TEXT REFERENCES coupon(id);
        ALTER TABLE customerOrder ADD COLUMN discountLabel TEXT;
        ALTER TABLE customerOrder ADD COLUMN discount BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX customerOrder_on_couponId ON customerOrder(couponId);
        CREATE TABLE cardEnrolment (
            codeHash TEXT PRIMARY KEY,
            userId TEXT NOT NULL,
            displayName TEXT,
            expiresAt TIMESTAMPTZ NOT NULL,
            usedAt TIMESTAMPTZ
        );
        ALTER TABLE accessToken ADD COLUMN userId TEXT;
        ALTER TABLE cafe ADD COLUMN displayTicketWarningMinutes BIGINT NOT NULL DEFAULT 5;
        ALTER TABLE cafe ADD COLUMN displayTicketLateMinutes BIGINT NOT NULL DEFAULT 8;
        ALTER TABLE cafe ADD COLUMN displayBoardReadyMinutes BIGINT NOT NULL DEFAULT 10;
        -- An event's sequence is the feed position of the ticket change that caused it, taken
        -- in the same transaction from feedSequence's row: events commit in sequence order.
        CREATE TABLE orderEvent (
            sequence BIGINT PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
            cafeId TEXT NOT NULL,
            type TEXT NOT NULL,
            previousSequence BIGINT,
            tickets TEXT,
            createdAt TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX orderEvent_on_orderId_sequence ON orderEvent(orderId, sequence);
        CREATE TABLE webhookEndpoint (
            id TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            cafeId TEXT REFERENCES cafe(id) ON DELETE CASCADE,
            events TEXT NOT NULL,
            secret TEXT NOT NULL,
            previousSecret TEXT,
            previousSecretExpiresAt TIMESTAMPTZ,
            cursor BIGINT NOT NULL,
            createdAt TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE webhookDelivery (
            endpointId TEXT NOT NULL REFERENCES webhookEndpoint(id) ON DELETE CASCADE,
            eventSequence BIGINT NOT NULL REFERENCES orderEvent(sequence) ON DELETE CASCADE,
            orderId TEXT NOT NULL,
            state TEXT NOT NULL,
            attempts BIGINT NOT NULL,
            nextAttemptAt TIMESTAMPTZ NOT NULL,
            firstAttemptAt TIMESTAMPTZ,
            PRIMARY KEY (endpointId, eventSequence)
        );
        CREATE INDEX webhookDelivery_pending_on_nextAttemptAt ON webhookDelivery(nextAttemptAt) WHERE state = 'pending';
        CREATE INDEX webhookDelivery_open ON webhookDelivery(endpointId, state, orderId, eventSequence);
        CREATE TABLE webhookAttempt (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            endpointId TEXT NOT NULL,
            eventSequence BIGINT NOT NULL,
            attemptedAt TIMESTAMPTZ NOT NULL,
            statusCode BIGINT,
            latencyMilliseconds BIGINT NOT NULL,
            error TEXT,
            FOREIGN KEY (endpointId, eventSequence) REFERENCES webhookDelivery(endpointId, eventSequence) ON DELETE CASCADE
        );
        CREATE INDEX webhookAttempt_on_delivery ON webhookAttempt(endpointId, eventSequence);
        CREATE TABLE serverKey (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            key BYTEA NOT NULL CHECK (length(key) >= 32)
        )
        """

    /// Attempts used to keep up to 200 bytes of a receiver's error answer ("HTTP 500: <body>"),
    /// shown in the deliveries: an internal service's answers could be read through a webhook.
    /// Only the status is kept now; this scrubs what older versions stored.
    static let scrubWebhookAnswersV4 = """
        UPDATE webhookAttempt SET error = 'HTTP ' || CAST(statusCode AS TEXT)
        WHERE statusCode IS NOT NULL AND error LIKE 'HTTP %'
        """

    // MARK: - v5

    /// What SQLite's v14 added: sessions of people signed in with the identity provider, sign-ins
    /// under way (secrets as SHA-256 hashes only) and the networks of each café's building.
    static let schemaV5 = """
        ALTER TABLE cafe ADD COLUMN networks TEXT NOT NULL DEFAULT '[]';
        CREATE TABLE userSession (
            id TEXT PRIMARY KEY,
            secretHash BYTEA NOT NULL UNIQUE,
            userId TEXT NOT NULL,
            role TEXT NOT NULL,
            name TEXT,
            email TEXT,
            createdAt TIMESTAMPTZ NOT NULL,
            lastSeenAt TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX userSession_on_userId ON userSession(userId);
        CREATE INDEX userSession_on_lastSeenAt ON userSession(lastSeenAt);
        CREATE TABLE loginAttempt (
            browserHash BYTEA PRIMARY KEY,
            state TEXT NOT NULL,
            nonce TEXT NOT NULL,
            codeVerifier TEXT NOT NULL,
            next TEXT NOT NULL,
            createdAt TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX loginAttempt_on_createdAt ON loginAttempt(createdAt)
        """

    // MARK: - v6

    /// What SQLite's v13 added: tickets' kitchen times (a held ticket's `fireAt`, `firedAt`,
    /// `startedAt`, `finishedAt`), orders' expected ready time, station prep times and firing
    /// by prep time, the display's allowance, items' prep time and daily quantity, and what is
    /// left of limited items per café-local day with what each order took.
    static let schemaV6 = """
        ALTER TABLE ticket ADD COLUMN prepSeconds BIGINT;
        ALTER TABLE ticket ADD COLUMN fireAt TIMESTAMPTZ;
        ALTER TABLE ticket ADD COLUMN firedAt TIMESTAMPTZ;
        ALTER TABLE ticket ADD COLUMN startedAt TIMESTAMPTZ;
        ALTER TABLE ticket ADD COLUMN finishedAt TIMESTAMPTZ;
        UPDATE ticket SET firedAt = createdAt;
        CREATE INDEX ticket_held_on_fireAt ON ticket(fireAt) WHERE status = 'held';
        CREATE INDEX ticket_open_on_cafeId ON ticket(cafeId, station)
            WHERE status IN ('held', 'new', 'preparing', 'ready');
        CREATE INDEX ticket_on_cafeId_finishedAt ON ticket(cafeId, finishedAt) WHERE finishedAt IS NOT NULL;
        ALTER TABLE customerOrder ADD COLUMN readyAt TIMESTAMPTZ;
        ALTER TABLE cafe ADD COLUMN stations TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE cafe ADD COLUMN fireByPrepTime BOOLEAN NOT NULL DEFAULT true;
        ALTER TABLE cafe ADD COLUMN displayTicketAllowanceMinutes BIGINT NOT NULL DEFAULT 3;
        ALTER TABLE menuItem ADD COLUMN prepSeconds BIGINT;
        ALTER TABLE menuItem ADD COLUMN dailyQuantity BIGINT;
        CREATE TABLE dailyStock (
            cafeId TEXT NOT NULL REFERENCES cafe(id) ON DELETE CASCADE,
            itemId TEXT NOT NULL,
            localDate TEXT NOT NULL,
            remaining BIGINT NOT NULL CHECK (remaining >= 0),
            PRIMARY KEY (cafeId, itemId, localDate)
        );
        CREATE TABLE stockTaken (
            orderId TEXT NOT NULL REFERENCES customerOrder(id) ON DELETE CASCADE,
            itemId TEXT NOT NULL,
            localDate TEXT NOT NULL,
            quantity BIGINT NOT NULL CHECK (quantity > 0),
            PRIMARY KEY (orderId, itemId)
        )
        """

    // MARK: - v7

    /// As SQLite's v16: the audit log written with each change, tokens' last use apart from the
    /// tokens (noting a use announces no token change) and orders refused for a full window; the
    /// kitchen report reads v6's `finishedAt`, the windows report reads orders by pickup start.
    static let consoleV7 = """
        CREATE TABLE auditEntry (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            at TIMESTAMPTZ NOT NULL,
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
            tokenId TEXT PRIMARY KEY,
            lastUsedAt TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE pickupRefusal (
            cafeId TEXT NOT NULL,
            start BIGINT NOT NULL,
            refused BIGINT NOT NULL,
            PRIMARY KEY (cafeId, start)
        );
        CREATE INDEX customerOrder_on_cafeId_pickupStart ON customerOrder(cafeId, pickupStart)
        """

    /// A script of plain statements (no semicolon inside one) split at its semicolons.
    static func statements(_ script: String) -> [String] {
        script.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter {
            !$0.isEmpty
                && !$0.split(separator: "\n").allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
        }
    }

    // MARK: - v8

    /// A kiosk's order has no user and most orders no coupon: indexing their NULLs cost two index
    /// inserts an order for rows no query looks up. Every lookup by user or coupon (the coupon's
    /// foreign key check included) compares with `=`, which implies NOT NULL, so the planner
    /// still uses them.
    static let orderIndexesV8 = """
        DROP INDEX customerOrder_on_userId_createdAt;
        CREATE INDEX customerOrder_on_userId_createdAt ON customerOrder(userId, createdAt) WHERE userId IS NOT NULL;
        DROP INDEX customerOrder_on_couponId;
        CREATE INDEX customerOrder_on_couponId ON customerOrder(couponId) WHERE couponId IS NOT NULL
        """
}
