import CanteenCore
import Foundation
import HTTPTypes
import NIOCore

/// The address of the client a request comes from. Behind proxies listed with `--trusted-proxy`,
/// `X-Forwarded-For` is read from the right: the rightmost address not added by a trusted proxy
/// is the client. From any other peer the header is ignored (anyone can send it).
public struct ClientAddressResolver: Sendable {
    public let trustedProxies: [IPAddressRange]

    public init(trustedProxies: [IPAddressRange]) {
        self.trustedProxies = trustedProxies
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address: the peer's, or the one the trusted proxies forwarded; nil without a
    /// peer (a request made in process).
    public func client(peer: SocketAddress?, headers: HTTPFields) -> IPAddress? {
        guard let peerText = peer?.ipAddress, let peerAddress = IPAddress(peerText)?.unmapped else { return nil }
        guard isTrusted(peerAddress) else { return peerAddress }
        var hops: [IPAddress] = []
        for field in headers[values: Self.forwardedFor] {
            for part in field.split(separator: ",") {
                // A hop that is not an address (garbage, `unknown`) ends what can be believed.
                guard let address = IPAddress(part.trimmingCharacters(in: .whitespaces))?.unmapped else {
                    hops.removeAll()
                    continue
                }
                hops.append(address)
            }
        }
        var client = peerAddress
        for hop in hops.reversed() {
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
