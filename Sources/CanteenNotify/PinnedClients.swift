import AsyncHTTPClient
import CanteenCore
import Synchronization

/// The HTTP clients webhooks go out on: one per host and checked address. A client for a host
/// name connects only to the address it was made for (AsyncHTTPClient's `dnsOverride` maps the
/// name to it, while TLS still checks the certificate for the name), so the address the policy
/// judged is the one connected to: a DNS answer that changes between the check and the connection
/// (rebinding) is never used. Clients keep their connections alive between attempts, and those
/// left unused are shut down by the delivery loop.
final class PinnedClients: Sendable {
    private struct Key: Hashable {
        let host: String
        let address: IPAddress
    }

    private struct Entry {
        let client: HTTPClient
        var users = 0
        var lastUsed = ContinuousClock.now
    }

    private let configuration: HTTPClient.Configuration
    private let entries = Mutex<[Key: Entry]>([:])

    /// - Parameter configuration: every client's configuration, without `dnsOverride`.
    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` with the client that connects `destination` to `address`.
    func withClient<Value>(
        for destination: WebhookDestination, address: IPAddress,
        _ body: (HTTPClient) async throws -> Value
    ) async throws -> Value {
        let key = Key(host: destination.clientHost, address: address)
        let client = entries.withLock { entries in
            if entries[key] == nil {
                var configuration = self.configuration
                if case .name = destination.host { configuration.dnsOverride = [key.host: "\(address)"] }
                entries[key] = Entry(
                    client: HTTPClient(
                        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                        configuration: configuration))
            }
            entries[key]!.users += 1
            return entries[key]!.client
        }
        defer {
            entries.withLock { entries in
                entries[key]?.users -= 1
                entries[key]?.lastUsed = .now
            }
        }
        return try await body(client)
    }

    /// Takes out the clients nobody used for `idle`, to be shut down.
    func takeIdle(for idle: Duration) -> [HTTPClient] {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            let stale = entries.filter { $0.value.users == 0 && now - $0.value.lastUsed >= idle }
            for key in stale.keys { entries[key] = nil }
            return stale.values.map(\.client)
        }
    }

    /// Takes out every client, to be shut down (the service is stopping; no attempt runs).
    func takeAll() -> [HTTPClient] {
        entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.map(\.client)
        }
    }
}
