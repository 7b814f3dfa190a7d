import CanteenCore
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's resolver (`getaddrinfo`: `/etc/hosts`, then DNS), as AsyncHTTPClient's own
/// connections use it. The lookup blocks, so it runs on a Dispatch thread, off the cooperative
/// pool; a cancelled task stops waiting for it at once (the lookup's late answer is dropped).
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of name: String) async throws -> [IPAddress] {
        let pending = PendingLookup()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard pending.start(continuation) else { return }
                DispatchQueue.global().async { pending.finish(Self.lookup(name)) }
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// `getaddrinfo` for TCP over IPv4 and IPv6, its order kept, each address once.
    static func lookup(_ name: String) -> Result<[IPAddress], any Error> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else {
            return .failure(HostResolutionError(name: name, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            guard let socketAddress = info.pointee.ai_addr else { continue }
            let address: IPAddress?
            switch info.pointee.ai_family {
            case AF_INET:
                address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
                }
            case AF_INET6:
                address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
                }
            default:
                address = nil
            }
            if let address, !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { return .failure(HostResolutionError(name: name, reason: "no address")) }
        return .success(addresses)
    }
}

/// One lookup's continuation, resumed once: by the lookup's answer or by cancellation.
private final class PendingLookup: Sendable {
    private struct State {
        var continuation: CheckedContinuation<[IPAddress], any Error>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Keeps the continuation; false (and resumed) when the task was cancelled already.
    func start(_ continuation: CheckedContinuation<[IPAddress], any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func finish(_ result: Result<[IPAddress], any Error>) {
        take()?.resume(with: result)
    }

    func cancel() {
        let continuation = state.withLock { state in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    private func take() -> CheckedContinuation<[IPAddress], any Error>? {
        state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
    }
}
