/// Turns a host name into the addresses it has (A and AAAA records, `/etc/hosts`): the
/// system's resolver in the server.
public protocol HostResolver: Sendable {
    /// Every address `name` resolves to, in the order a client would try them; throws a
    /// `HostResolutionError` when it has none. Returns promptly when the task is cancelled.
    func addresses(of name: String) async throws -> [IPAddress]
}

/// A name that did not resolve, with the resolver's reason in a few words.
public struct HostResolutionError: Error, Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public var description: String { "\(name) does not resolve: \(reason)" }
}
