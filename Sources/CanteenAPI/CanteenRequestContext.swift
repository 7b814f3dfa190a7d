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
    /// The connection the request came on.
    private let channel: any Channel
    /// The peer's address (nil when there is no socket, as in router tests), read when asked
    /// for: few requests need it (a guess limiter, a resolution, a log line with the client's
    /// address), and reading it (a lock, a copy) cost every request 0.4 % of a `GET /healthz`.
    public var remoteAddress: SocketAddress? { channel.remoteAddress }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Request bodies are read up to 1 MiB; larger ones get 413.
    public var maxUploadSize: Int { APILimits.maxBodyBytes }
}
