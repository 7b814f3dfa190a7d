import CanteenCore
import CanteenIdentity
import Hummingbird
import Logging
import NIOCore

/// Per-request state: the authenticated token (if any) and the reader's negotiated language.
public struct CanteenRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The bearer token presented, once verified; nil when the request carried none.
    public var token: AccessToken? {
        get { verified?.token }
        set { verified = newValue.map { VerifiedToken($0) } }
    }
    /// How the request proved who it is (nil without credentials).
    public var credential: Credential? { verified?.credential }
    /// The person signed in (a session or a provider's token), with the name and email the
    /// provider gave; nil for bearer tokens made by ops.
    public var person: SignedInPerson? { verified?.person }
    /// The token, held by reference: the context is copied on its way through the middlewares
    /// and the router, and a token inline would have its four strings retained and released at
    /// every copy.
    var verified: VerifiedToken?
    /// The peer's address (nil when there is no socket, as in router tests).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are read up to 1 MiB; larger ones get 413.
    public var maxUploadSize: Int { APILimits.maxBodyBytes }

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
            throw CanteenError(.forbidden, code: .forbidden,
                               message: "a \(token.role.rawValue) token cannot do this; it needs \(roles.map(\.rawValue).joined(separator: " or "))",
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
                throw CanteenError(.forbidden, code: .forbidden, message: "this token acts for another user",
                                   parameters: ["role": token.role.rawValue])
            }
            throw CanteenError(.forbidden, code: .forbidden,
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
            throw CanteenError(.forbidden, code: .forbidden,
                               message: "this token is bound to café '\(token.cafeID ?? "")', not '\(cafeID)'",
                               parameters: ["cafe": cafeID])
        }
    }
}

/// How a request proved who it is.
public enum Credential: String, Sendable {
    /// `Authorization: Bearer` with a token made by ops (`canteen tokens create`, `POST /v1/tokens`).
    case token
    /// The session cookie of a person signed in with the identity provider.
    case session
    /// `Authorization: Bearer` with the identity provider's JWT access token (a native app).
    case providerToken
}

/// A verified token, shared by the copies of a request's context.
final class VerifiedToken: Sendable {
    let token: AccessToken
    let credential: Credential
    let person: SignedInPerson?

    init(_ token: AccessToken, credential: Credential = .token, person: SignedInPerson? = nil) {
        self.token = token
        self.credential = credential
        self.person = person
    }
}

/// How the server names itself.
public enum CanteenServer {
    /// The `Server` field of every answer.
    public static let name = "Canteen"
}

/// Fixed limits of the HTTP API.
public enum APILimits {
    /// Request bodies: larger ones are 413 `body_too_large`.
    public static let maxBodyBytes = 1 << 20
    /// One header line, and all header lines together: larger ones are 431 `headers_too_large`.
    public static let maxHeaderFieldBytes = 16 << 10
    public static let maxHeaderBytes = 32 << 10
    /// Header lines in one request.
    public static let maxHeaderFields = 100
    /// The longest bearer token considered (longer ones are unknown: 401).
    public static let maxTokenBytes = 256
}

extension CanteenError {
    static let unauthenticated = CanteenError(
        .unauthenticated, code: .unauthenticated,
        message: "missing or unknown bearer token; send Authorization: Bearer TOKEN")

    static let metricsOnly = CanteenError(
        .forbidden, code: .forbidden, message: "a metrics token reads GET /metrics and nothing else",
        parameters: ["role": Role.metrics.rawValue])
}
