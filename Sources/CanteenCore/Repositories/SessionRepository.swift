import Foundation

/// Where sessions and sign-ins under way are kept. Secrets are random, returned once, stored
/// only as SHA-256 hashes.
public protocol SessionRepository: Sendable {
    /// A new session for `spec`; its secret (the cookie's value) is returned once. Sessions idle
    /// longer than `UserSession.idleLimit` are deleted on the way.
    func createSession(_ spec: SessionSpec) async throws -> (session: UserSession, secret: String)
    /// The live session whose secret this is, its idle time renewed; nil when there is none or it
    /// has been idle longer than `UserSession.idleLimit` (it is then deleted).
    func authenticate(secret: String) async throws -> UserSession?
    /// Ends the session whose secret this is; whether there was one.
    @discardableResult
    func endSession(secret: String) async throws -> Bool
    /// Keeps a sign-in under way; returns the secret that binds it to the browser (a cookie).
    /// Attempts older than `LoginAttempt.maxAge` are deleted on the way.
    func beginLogin(_ attempt: LoginAttempt) async throws -> String
    /// The attempt the browser's secret names, deleted as it is read (single use); nil when there
    /// is none or it is older than `LoginAttempt.maxAge`.
    func takeLogin(browserSecret: String) async throws -> LoginAttempt?
}
