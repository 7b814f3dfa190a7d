import Foundation

/// What a bearer token may do.
public enum Role: String, CaseIterable, Hashable, Sendable, Codable {
    /// Counter tablets and phones acting for an employee: browse, order.
    case kiosk
    /// Kitchen displays: read and move tickets.
    case kitchen
    /// Operations staff: configure everything.
    case ops
}

/// A stored access token (its secret is kept only as a hash).
public struct AccessToken: Hashable, Sendable, Codable {
    /// Public identifier, safe to print and to revoke by (`tok_…`).
    public var id: String
    public var name: String?
    public var role: Role
    /// The café a kiosk or kitchen token is bound to; nil serves every café.
    public var cafeID: String?
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, name: String?, role: Role, cafeID: String?, createdAt: Date, revokedAt: Date?) {
        self.id = id
        self.name = name
        self.role = role
        self.cafeID = cafeID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// Whether this token may act on `cafeID`.
    public func serves(cafeID other: String) -> Bool { cafeID == nil || cafeID == other }
}
