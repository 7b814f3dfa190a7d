import CanteenCore
import CanteenPersistence
import Foundation
import GRDB

/// A row of `userSession`: the cookie's secret is kept only as its SHA-256.
struct UserSessionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "userSession"
    var id: String
    var secretHash: Data
    var userId: String
    var role: String
    var name: String?
    var email: String?
    var createdAt: Date
    var lastSeenAt: Date

    /// The session; a role other than user or ops is an error naming the row.
    func session() throws -> UserSession {
        guard let role = Role(rawValue: role), role == .user || role == .ops else {
            throw StoredRow.invalid(table: Self.databaseTableName, id: id, "'\(role)' is not a session role")
        }
        return UserSession(
            id: id, userID: userId, role: role, name: name, email: email, createdAt: createdAt,
            lastSeenAt: lastSeenAt)
    }
}

/// A row of `loginAttempt`, keyed by the SHA-256 of the secret in the browser's sign-in cookie.
struct LoginAttemptRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loginAttempt"
    var browserHash: Data
    var state: String
    var nonce: String
    var codeVerifier: String
    var next: String
    var createdAt: Date

    var attempt: LoginAttempt {
        LoginAttempt(state: state, nonce: nonce, codeVerifier: codeVerifier, next: next, createdAt: createdAt)
    }
}
