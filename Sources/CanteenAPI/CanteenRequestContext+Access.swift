import CanteenCore
import CanteenIdentity

/// The access rules a route asks of its request: a token, a role, a café, a user acted for.
extension CanteenRequestContext {
    /// The verified token, or 401 when the request had none. A metrics token is refused (403)
    /// here, and so everywhere but `GET /metrics`, even where any other token may read.
    public func requireToken() throws(CanteenError) -> AccessToken {
        guard let token else { throw .unauthenticated }
        guard token.role != .metrics else { throw .metricsOnly }
        return token
    }

    /// The verified token when its role is one of `roles`; 401 without a token, 403 otherwise.
    @discardableResult
    public func require(_ roles: Role..., cafe cafeID: String? = nil) throws(CanteenError) -> AccessToken {
        let token = try requireToken()
        guard roles.contains(token.role) else {
            let needed = roles.map(\.rawValue).joined(separator: " or ")
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: person.map { Self.refusal($0, role: token.role, opsWork: roles.contains(.ops), needs: needed) }
                    ?? "a \(token.role.rawValue) token cannot do this; it needs \(needed)",
                parameters: ["role": token.role.rawValue])
        }
        if let cafeID { try requireAccess(token, to: cafeID) }
        return token
    }

    /// A token that may act for `userID`: kiosk or ops for anyone, a user token for its own user;
    /// 401 without a token, 403 otherwise.
    @discardableResult
    public func requireActing(forUser userID: String) throws(CanteenError) -> AccessToken {
        let token = try requireToken()
        guard token.actsFor(userID: userID) else {
            if token.role == .user {
                throw CanteenError(
                    .forbidden, code: .forbidden, message: "this token acts for another user",
                    parameters: ["role": token.role.rawValue])
            }
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "a \(token.role.rawValue) token cannot do this; it needs kiosk, ops or the user's own token",
                parameters: ["role": token.role.rawValue])
        }
        return token
    }

    /// Any valid token that serves `cafeID`.
    @discardableResult
    public func requireAccess(to cafeID: String) throws(CanteenError) -> AccessToken {
        let token = try requireToken()
        try requireAccess(token, to: cafeID)
        return token
    }

    private func requireAccess(_ token: AccessToken, to cafeID: String) throws(CanteenError) {
        guard token.serves(cafeID: cafeID) else {
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "this token is bound to café '\(token.cafeID ?? "")', not '\(cafeID)'",
                parameters: ["cafe": cafeID])
        }
    }
}

extension CanteenRequestContext {
    /// Why a person signed in with the identity provider may not do what `needed` may: they hold
    /// no token, so the refusal names them and, for ops work, the group that grants it.
    static func refusal(_ person: SignedInPerson, role: Role, opsWork: Bool, needs needed: String) -> String {
        if opsWork && role != .ops {
            return "\(person.userID) is signed in but not in the ops group; this needs \(needed)"
        }
        return "\(person.userID) is signed in as \(role.rawValue); this needs \(needed)"
    }
}

extension CanteenError {
    static let unauthenticated = CanteenError(
        .unauthenticated, code: .unauthenticated,
        message: "missing or unknown bearer token; send Authorization: Bearer TOKEN")

    static let metricsOnly = CanteenError(
        .forbidden, code: .forbidden, message: "a metrics token reads GET /metrics and nothing else",
        parameters: ["role": Role.metrics.rawValue])
}
