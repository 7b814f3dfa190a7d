import Foundation

/// A person signed in with the company's identity provider: a server-side row behind a cookie,
/// so that it can be ended (logout, erasure) and expires after `idleLimit` without use.
public struct UserSession: Hashable, Sendable {
    /// Public identifier (`ses_…`): safe to show and log; never the cookie's secret.
    public var id: String
    /// The user id the provider's claim gave (`--oidc-user-claim`): the id preferences, cards and orders use.
    public var userID: String
    /// `user`, or `ops` for members of `--oidc-ops-group`.
    public var role: Role
    public var name: String?
    public var email: String?
    public var createdAt: Date
    /// The last request made with the session (renewed at most once a minute).
    public var lastSeenAt: Date

    public init(
        id: String, userID: String, role: Role, name: String?, email: String?, createdAt: Date,
        lastSeenAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.role = role
        self.name = name
        self.email = email
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }

    /// A session unused this long is over (12 hours).
    public static let idleLimit: TimeInterval = 12 * 3600
    /// `lastSeenAt` is written at most this often, so that a busy page does not write on every request.
    public static let touchInterval: TimeInterval = 60

    /// Whether the session is still live at `instant`.
    public func isLive(at instant: Date) -> Bool { instant.timeIntervalSince(lastSeenAt) <= Self.idleLimit }

    /// The session as the bearer of its rights: a token of its role acting for its user.
    public var accessToken: AccessToken {
        AccessToken(id: id, name: name, role: role, cafeID: nil, userID: userID, createdAt: createdAt, revokedAt: nil)
    }
}

/// What a new session is: who signed in, as which role, with the name and email the provider gave.
public struct SessionSpec: Hashable, Sendable {
    public var userID: String
    public var role: Role
    public var name: String?
    public var email: String?

    public init(userID: String, role: Role, name: String?, email: String?) {
        self.userID = userID
        self.role = role
        self.name = name
        self.email = email
    }
}

/// A sign-in under way: what the callback must find again, bound to the browser that started it.
public struct LoginAttempt: Hashable, Sendable {
    /// The `state` sent to the provider.
    public var state: String
    /// The `nonce` the ID token must carry.
    public var nonce: String
    /// The PKCE code verifier (its S256 challenge went to the provider).
    public var codeVerifier: String
    /// Where to go once signed in (a path of this server).
    public var next: String
    public var createdAt: Date

    public init(state: String, nonce: String, codeVerifier: String, next: String, createdAt: Date) {
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.next = next
        self.createdAt = createdAt
    }

    /// A sign-in must come back within 10 minutes.
    public static let maxAge: TimeInterval = 600
}
