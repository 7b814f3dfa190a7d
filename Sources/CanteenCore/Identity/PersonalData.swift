import Foundation

/// A badge card as its owner may see it: the keyed hash stands for the card (its identifier is never stored).
public struct StoredCard: Hashable, Sendable {
    public var identifierHash: String
    public var technology: String
    public var displayName: String?
    public var createdAt: Date

    public init(identifierHash: String, technology: String, displayName: String?, createdAt: Date) {
        self.identifierHash = identifierHash
        self.technology = technology
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// A one-time card registration code made for a person (the code itself is stored only as a hash).
public struct StoredEnrolment: Hashable, Sendable {
    public var displayName: String?
    public var expiresAt: Date
    public var usedAt: Date?

    public init(displayName: String?, expiresAt: Date, usedAt: Date?) {
        self.displayName = displayName
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// Everything Canteen holds about one person, read in one snapshot: their own preferences, cards,
/// card codes, sessions, user tokens and the orders placed for them.
public struct PersonalData: Sendable {
    public var userID: String
    /// The person's own preference values (not the site's or the built-in defaults); nil without any.
    public var preferences: PreferenceDocument?
    public var cards: [StoredCard]
    public var enrolments: [StoredEnrolment]
    public var sessions: [UserSession]
    public var tokens: [AccessToken]
    /// Their orders' ids, newest first.
    public var orderIDs: [String]

    public init(
        userID: String, preferences: PreferenceDocument?, cards: [StoredCard], enrolments: [StoredEnrolment],
        sessions: [UserSession], tokens: [AccessToken], orderIDs: [String]
    ) {
        self.userID = userID
        self.preferences = preferences
        self.cards = cards
        self.enrolments = enrolments
        self.sessions = sessions
        self.tokens = tokens
        self.orderIDs = orderIDs
    }
}

/// What erasing a person removed, table by table.
public struct Erasure: Hashable, Sendable {
    public var preferences: Int
    public var cards: Int
    public var enrolments: Int
    public var sessions: Int
    public var tokens: Int
    /// Orders that no longer name the person (their lines and totals stay for the café's books).
    public var ordersUnlinked: Int

    public init(preferences: Int, cards: Int, enrolments: Int, sessions: Int, tokens: Int, ordersUnlinked: Int) {
        self.preferences = preferences
        self.cards = cards
        self.enrolments = enrolments
        self.sessions = sessions
        self.tokens = tokens
        self.ordersUnlinked = ordersUnlinked
    }
}
