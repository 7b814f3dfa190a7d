import CanteenCore
import CanteenIdentity

extension CanteenRequestContext {
    /// The audit entry of a change this request makes (`action` on the `kind` thing `id`), when
    /// it is made with an ops or kitchen identity: the store records it with the change.
    func audit(_ action: String, _ kind: String, _ id: String, cafe cafeID: String?) -> AuditEntry? {
        guard let token, token.role == .ops || token.role == .kitchen else { return nil }
        return AuditEntry(
            actor: auditActor(token), action: action, targetKind: kind, targetID: id,
            cafeID: cafeID)
    }

    /// A token made by ops is named by its id and name; a person signed in with the identity
    /// provider (a session, the provider's access token) holds no token and is named by user id.
    private func auditActor(_ token: AccessToken) -> AuditActor {
        guard let person else { return AuditActor(token: token) }
        return AuditActor(tokenID: nil, tokenName: nil, role: token.role.rawValue, userID: person.userID)
    }
}
