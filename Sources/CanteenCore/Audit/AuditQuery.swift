import Foundation

/// Which audit entries to list: of one café (or all), in an interval, after a page's cursor.
public struct AuditQuery: Hashable, Sendable {
    public var cafeID: String?
    /// Entries made at or after this instant.
    public var from: Date?
    /// Entries made before this instant.
    public var to: Date?
    /// The `next` cursor of the page before: entries older than it.
    public var after: Int64?
    public var limit: Int

    /// The most entries one page holds.
    public static let maximumLimit = 500

    public init(cafeID: String? = nil, from: Date? = nil, to: Date? = nil, after: Int64? = nil, limit: Int = 100) {
        self.cafeID = cafeID
        self.from = from
        self.to = to
        self.after = after
        self.limit = limit
    }
}

/// One page of the audit log, newest entry first, and the cursor of the next page (nil: no more).
public struct AuditPage: Hashable, Sendable {
    public var entries: [AuditEntry]
    public var next: Int64?

    public init(entries: [AuditEntry], next: Int64?) {
        self.entries = entries
        self.next = next
    }
}
