import CanteenJSON
import Foundation

/// Who made a change: the token it was made with (id, name and role), or a signed-in user.
public struct AuditActor: Hashable, Sendable {
    public var tokenID: String?
    public var tokenName: String?
    /// The token's role (`ops`, `kitchen`), or `user` for a signed-in person.
    public var role: String
    public var userID: String?

    public init(tokenID: String?, tokenName: String?, role: String, userID: String?) {
        self.tokenID = tokenID
        self.tokenName = tokenName
        self.role = role
        self.userID = userID
    }

    /// The token a request was made with.
    public init(token: AccessToken) {
        self.init(tokenID: token.id, tokenName: token.name, role: token.role.rawValue, userID: token.userID)
    }
}

/// One field of a change: its value before and after (nil: it did not exist).
public struct AuditChange: Hashable, Sendable {
    /// A path into the changed thing: `price`, `items[latte].price`, `pickup.capacity`.
    public var field: String
    public var before: JSONValue?
    public var after: JSONValue?

    public init(field: String, before: JSONValue?, after: JSONValue?) {
        self.field = field
        self.before = before
        self.after = after
    }

    /// `{"field", "before"?, "after"?}`: as the API shows it and both stores keep it (a missing
    /// member: the field did not exist then).
    public var json: JSONValue {
        var object: [String: JSONValue] = ["field": .string(field)]
        if let before { object["before"] = before }
        if let after { object["after"] = after }
        return .object(object)
    }
}

/// One change recorded in the audit log, in the same transaction as the change itself: when,
/// who, what (an action on a target) and the fields it changed, before and after. Never a secret.
///
/// A route makes the entry with who and what; the store that makes the change records what it
/// changed (`recording`) as it reads it in its transaction, and writes the entry there too.
public struct AuditEntry: Hashable, Sendable {
    /// Increasing in the order entries were written; 0 before the store wrote it.
    public var id: Int64
    public var at: Date
    public var actor: AuditActor
    /// What was done: `cafe.save`, `menu.replace`, `item.change`, `token.revoke`, …
    public var action: String
    /// The kind of thing changed (`cafe`, `menu`, `item`, `beacon`, `token`, `webhook`, `card`,
    /// `coupon`, `site_preference`) and its id.
    public var targetKind: String
    public var targetID: String
    /// The café the change belongs to, when it belongs to one.
    public var cafeID: String?
    public var changes: [AuditChange]

    public init(
        id: Int64 = 0, at: Date = Date(timeIntervalSince1970: 0), actor: AuditActor, action: String,
        targetKind: String, targetID: String, cafeID: String?, changes: [AuditChange] = []
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.targetKind = targetKind
        self.targetID = targetID
        self.cafeID = cafeID
        self.changes = changes
    }

    /// This entry about the thing with id `id` (one the store made, such as a new token).
    public func targeting(_ id: String) -> AuditEntry {
        var entry = self
        entry.targetID = id
        return entry
    }

    /// This entry as the store writes it: made at `instant`, changing what `before` and `after`
    /// differ in (nil: the thing did not exist before, or does not after).
    public func recording(before: JSONValue?, after: JSONValue?, at instant: Date) -> AuditEntry {
        var entry = self
        entry.at = instant
        entry.changes = AuditChange.differences(before: before, after: after)
        return entry
    }

    /// This entry recording a revocation at `instant` (a token's, a coupon's): `revokedAt` set.
    public func revocation(at instant: Date) -> AuditEntry {
        recording(before: ["revokedAt": .null], after: ["revokedAt": .string(RFC3339.utcSeconds(instant))], at: instant)
    }
}
