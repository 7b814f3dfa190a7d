import CanteenCore

extension CanteenRequestContext {
    /// The audit entry of a change this request makes (`action` on the `kind` thing `id`), when
    /// it is made with an ops or kitchen identity: the store records it with the change.
    func audit(_ action: String, _ kind: String, _ id: String, cafe cafeID: String?) -> AuditEntry? {
        guard let token, token.role == .ops || token.role == .kitchen else { return nil }
        return AuditEntry(
            actor: AuditActor(token: token), action: action, targetKind: kind, targetID: id,
            cafeID: cafeID)
    }
}
