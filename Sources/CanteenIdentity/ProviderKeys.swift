import CanteenCore
import CanteenJSON
import Foundation
import Logging

/// The provider's signing keys, cached. A token signed with a `kid` the cache does not hold makes
/// it fetch the JWKS again, at most once per `refetchInterval` (else anyone could make Canteen
/// fetch on every request), so a key the provider starts using after a rotation is picked up
/// without a restart. Concurrent lookups share one fetch.
actor ProviderKeys {
    /// The least time between two fetches caused by unknown keys.
    static let refetchInterval: TimeInterval = 10

    private let fetchJWKS: @Sendable () async throws -> JSONValue
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private var keys: [String: VerificationKey] = [:]
    private var fetchedAt: Date?
    private var fetching: Task<Void, any Error>?
    /// How many times the JWKS was fetched (for tests and logs).
    private(set) var fetchCount = 0

    init(
        clock: @escaping @Sendable () -> Date, logger: Logger,
        fetchJWKS: @escaping @Sendable () async throws -> JSONValue
    ) {
        self.fetchJWKS = fetchJWKS
        self.clock = clock
        self.logger = logger
    }

    /// The key `kid` names (or the only key of `algorithm` when the token names none); refetches
    /// once when it is unknown and the last fetch is old enough; `token_invalid` (`key`) otherwise.
    func key(id kid: String?, algorithm: String) async throws -> VerificationKey {
        if fetchedAt == nil { try await refresh() }
        if let key = lookup(kid, algorithm) { return key }
        if let fetchedAt, clock().timeIntervalSince(fetchedAt) >= Self.refetchInterval {
            logger.info(
                "the provider's token names an unknown key; fetching its JWKS again",
                metadata: ["kid": "\(kid ?? "-")"])
            try await refresh()
            if let key = lookup(kid, algorithm) { return key }
        }
        throw TokenCheck.key.failure(
            kid.map { "no key '\($0.prefix(80))' in the provider's JWKS" }
                ?? "the token names no key and the JWKS has no single \(algorithm) key")
    }

    private func lookup(_ kid: String?, _ algorithm: String) -> VerificationKey? {
        if let kid { return keys[kid] }
        let candidates = keys.values.filter { $0.algorithm == algorithm }
        return candidates.count == 1 ? candidates.first : nil
    }

    private func refresh() async throws {
        if let fetching { return try await fetching.value }
        let task = Task { [fetchJWKS] in
            do {
                let document = try await fetchJWKS()
                self.replace(await VerificationKey.keys(jwks: document))
            } catch {
                // A failed fetch counts too: a provider that is down is not asked on every request.
                self.fetchedAt = self.clock()
                throw error
            }
        }
        fetching = task
        defer { fetching = nil }
        try await task.value
    }

    private func replace(_ fresh: [String: VerificationKey]) {
        keys = fresh
        fetchedAt = clock()
        fetchCount += 1
    }
}
