import CanteenCore
import CanteenPersistence
import CanteenPostgres
import CanteenStore
import Foundation

/// `canteen db copy`: moves a SQLite database into an empty PostgreSQL one, every table, so a
/// café that outgrows one machine keeps its history.
///
/// The source is read as one snapshot; the target is written in one transaction that commits
/// only after every table's row count matched the source's. An interrupted copy leaves the
/// target empty, never half-filled; a target that holds data is refused.
public struct DatabaseCopy: Sendable {
    /// Tables in the order their foreign keys need. A table of the source missing here stops
    /// the copy before anything is written (nothing is left behind silently).
    public static let tables = [
        "cafe", "dayPart", "menuCategory", "menuItem", "modifierGroup", "modifierOption", "soldOut", "beacon",
        "accessToken", "coupon", "customerOrder", "orderLine", "ticket", "pickupSlot", "orderNumber", "idempotencyKey",
        "idempotencyRecord", "userPreferences", "sitePreferences", "card", "cardEnrolment", "orderEvent",
        "webhookEndpoint", "webhookDelivery", "webhookAttempt", "userSession", "loginAttempt",
        "auditEntry", "tokenUse", "pickupRefusal",
        "dailyStock", "stockTaken",
    ]
    /// Tables whose one row is carried over as a value, not inserted.
    static let positions = ["feedSequence"]

    /// What one table's copy did.
    public struct TableCopy: Sendable {
        public var table: String
        public var rows: Int
    }

    /// Progress: a table, how many of its rows are copied, how many it has.
    public typealias Progress = @Sendable (_ table: String, _ copied: Int, _ total: Int) -> Void

    public let source: URL
    public let target: PostgresURL
    public let pageSize: Int

    public init(source: URL, target: PostgresURL, pageSize: Int = 2000) {
        self.source = source
        self.target = target
        self.pageSize = pageSize
    }

    /// Copies every table and returns what was copied; throws before committing anything when
    /// the source has a table this version does not copy, the target is not empty, or a count
    /// differs.
    public func run(progress: @escaping Progress) async throws -> [TableCopy] {
        guard AppDatabase.exists(in: source) else {
            throw CanteenError(
                .notFound, code: .invalidField,
                message: "\(source.relativePath) holds no \(AppDatabase.fileName)", field: "from")
        }
        let sqlite = try AppDatabase.open(directory: source)
        defer { try? sqlite.close() }
        let reader = try sqlite.copySource()
        let sourceTables = try await reader.tables()
        let unknown = sourceTables.filter {
            !Self.tables.contains($0) && !Self.positions.contains($0)
                && !AppDatabase.CopySource.engineTables.contains($0)
        }
        guard unknown.isEmpty else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "the source has tables this version does not copy: \(unknown.joined(separator: ", "))",
                field: "from")
        }
        var feedPosition: Int64 = 0
        if sourceTables.contains("feedSequence"),
            case .integer(let value)? = try await reader.rows("feedSequence", offset: 0, limit: 1).rows.first?.last
        {
            feedPosition = value
        }
        let position = feedPosition
        // The data dir's card key hashes its cards and signs its coupons: it becomes the
        // database's, so they keep working on every server (unless CANTEEN_CARD_KEY is set,
        // which the servers then use instead).
        let keyFile = source.appendingPathComponent("card.key")
        let sourceKey: Data? =
            try CardKey.fromEnvironment() == nil ? FileManager.default.contents(atPath: keyFile.path) : nil
        if let sourceKey, sourceKey.count < 32 {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "\(keyFile.path) holds \(sourceKey.count) bytes, a card key has 32", field: "from")
        }
        let stores = CanteenStores.open(postgres: target, cardKey: nil)
        guard let database = stores.postgresDatabase else { return [] }
        let pageSize = pageSize
        return try await stores.withDatabase { _ in
            try await database.copying { target in
                var nonEmpty: [String] = []
                for table in try await target.tables() where table != "feedsequence" {
                    if try await target.count(table) > 0 { nonEmpty.append(table) }
                }
                if try await target.feedPosition() != 0 { nonEmpty.append("feedsequence") }
                guard nonEmpty.isEmpty else {
                    throw CanteenError(
                        .conflict, code: .invalidField,
                        message:
                            "the target already holds data (\(nonEmpty.joined(separator: ", "))); copy into an empty database",
                        field: "to")
                }
                var copied: [TableCopy] = []
                for table in Self.tables where sourceTables.contains(table) {
                    let total = try await reader.count(table)
                    progress(table, 0, total)
                    var offset = 0
                    while offset < total {
                        let page = try await reader.rows(table, offset: offset, limit: pageSize)
                        guard !page.rows.isEmpty else { break }
                        try await target.insert(page, into: table, firstRow: offset + 1)
                        offset += page.rows.count
                        progress(table, offset, total)
                    }
                    let written = try await target.count(table)
                    guard written == total else {
                        throw CanteenError(
                            .internal, code: .internalError,
                            message:
                                "table \(table): \(total) rows read but \(written) in the target; nothing was committed"
                        )
                    }
                    copied.append(TableCopy(table: table, rows: total))
                }
                try await target.setFeedPosition(position)
                try await target.advanceIdentities()
                if let sourceKey { try await target.setServerKey(sourceKey) }
                return copied
            }
        }
    }
}
