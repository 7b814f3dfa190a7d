import CanteenCore
import CanteenJSON
import Foundation

/// What the provider's discovery document (`/.well-known/openid-configuration`) says Canteen needs.
public struct ProviderMetadata: Sendable, Hashable {
    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let jwksURI: String
    /// Where the provider ends its own session (RP-initiated logout), when it says.
    public let endSessionEndpoint: String?

    /// Reads the document; its `issuer` must be the configured one exactly (OpenID Connect
    /// Discovery §4.3), and every endpoint https (http only on loopback, as the issuer).
    init(_ document: JSONValue, expectedIssuer: String) throws(CanteenError) {
        guard let object = document.objectValue else { throw Self.unusable("it is not a JSON object") }
        func endpoint(_ name: String, required: Bool = true) throws(CanteenError) -> String? {
            guard let text = object[name]?.stringValue else {
                if required { throw Self.unusable("it has no \(name)") }
                return nil
            }
            guard let url = URL(string: text), let host = url.host,
                url.scheme == "https" || (url.scheme == "http" && PublicURL.isLoopback(host: host))
            else {
                throw Self.unusable("\(name) '\(text.prefix(200))' is not an https URL")
            }
            return text
        }
        guard let issuer = object["issuer"]?.stringValue, issuer == expectedIssuer else {
            throw Self.unusable(
                "its issuer is '\(object["issuer"]?.stringValue?.prefix(200) ?? "missing")', "
                    + "not the configured '\(expectedIssuer)'")
        }
        self.issuer = issuer
        authorizationEndpoint = try endpoint("authorization_endpoint")!
        tokenEndpoint = try endpoint("token_endpoint")!
        jwksURI = try endpoint("jwks_uri")!
        endSessionEndpoint = try endpoint("end_session_endpoint", required: false)
    }

    private static func unusable(_ why: String) -> CanteenError {
        CanteenError(
            .unavailable, code: .providerUnavailable,
            message: "the identity provider's discovery document cannot be used: \(why)")
    }
}
