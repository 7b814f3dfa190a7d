import AsyncHTTPClient
import CanteenCore
import Foundation
import NIOCore
import NIOHTTP1

/// How Canteen talks to the provider: a GET for discovery and keys, a form POST for the token
/// endpoint. Answers are at most `maxBodyBytes`; every call has a deadline.
public protocol ProviderTransport: Sendable {
    /// `(status, body)` of a GET.
    func get(_ url: String) async throws -> (status: Int, body: Data)
    /// `(status, body)` of a POST of `application/x-www-form-urlencoded` fields.
    func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws
        -> (status: Int, body: Data)
}

/// The provider over AsyncHTTPClient's shared client.
public struct HTTPProviderTransport: ProviderTransport {
    /// The largest answer read (a JWKS or a token answer is a few kilobytes).
    static let maxBodyBytes = 1 << 20
    let timeout: TimeAmount

    public init(timeout: Duration = .seconds(10)) {
        let (seconds, attoseconds) = timeout.components
        self.timeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    public func get(_ url: String) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request, url)
    }

    public func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws
        -> (status: Int, body: Data)
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request, url)
    }

    private func send(_ request: HTTPClientRequest, _ url: String) async throws -> (status: Int, body: Data) {
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: Self.maxBodyBytes)
            return (Int(response.status.code), Data(body.readableBytesView))
        } catch {
            throw CanteenError(
                .unavailable, code: .providerUnavailable,
                message: "the identity provider at \(url.prefix(200)) cannot be reached: \(error)")
        }
    }
}

/// `application/x-www-form-urlencoded` as the token endpoint and the authorization URL take it.
public enum FormEncoding {
    /// Unreserved characters as they are, everything else percent-encoded (space as %20).
    static let unreserved = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}
