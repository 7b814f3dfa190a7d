extension WebhookAddressPolicy {
    /// What to do with a destination: where to connect, or why not.
    public enum Verdict: Hashable, Sendable {
        /// Connect to this address (every address of the host passed; this is the first).
        case connect(IPAddress)
        /// An address of the host is internal and not allowed: "address 10.0.0.1 is private",
        /// "localhost resolves to 127.0.0.1, which is loopback".
        case refused(String)
        /// The host name did not resolve (now).
        case unresolved(HostResolutionError)
    }

    /// Judges `destination`: its address, or every address its name resolves to. A name with
    /// one internal address among public ones is refused (what DNS rebinding would use).
    public func verdict(for destination: WebhookDestination, resolver: any HostResolver) async -> Verdict {
        switch destination.host {
        case .address(let address):
            if let kind = refusal(of: address) { return .refused("address \(address) is \(kind)") }
            return .connect(address)
        case .name(let name):
            let addresses: [IPAddress]
            do {
                addresses = try await resolver.addresses(of: destination.clientHost)
            } catch let error as HostResolutionError {
                return .unresolved(error)
            } catch {
                return .unresolved(HostResolutionError(name: name, reason: "\(error)"))
            }
            for address in addresses {
                if let kind = refusal(of: address) {
                    return .refused("\(name) resolves to \(address), which is \(kind)")
                }
            }
            guard let first = addresses.first else {
                return .unresolved(HostResolutionError(name: name, reason: "no address"))
            }
            return .connect(first)
        }
    }
}
