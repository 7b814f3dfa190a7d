import ArgumentParser
import CanteenAPI
import CanteenCore
import CanteenIdentity
import Foundation
import Logging

/// `canteen serve`'s options for signing people in (OpenID Connect), the public URL, proxies and
/// client addresses. Each sign-in option may also come from the environment.
struct IdentityOptions: ParsableArguments {
    @Option(help: "The address people reach Canteen at (https://canteen.example.com); also CANTEEN_PUBLIC_URL.")
    var publicUrl: String?
    @Option(help: "The OpenID provider's issuer URL (https; http only on loopback); also CANTEEN_OIDC_ISSUER.")
    var oidcIssuer: String?
    @Option(help: "Canteen's client id at the provider; also CANTEEN_OIDC_CLIENT_ID.")
    var oidcClientId: String?
    @Option(help: "A file holding the client secret; or CANTEEN_OIDC_CLIENT_SECRET (the secret itself).")
    var oidcClientSecretFile: String?
    @Option(help: "The claim that is the user id; also CANTEEN_OIDC_USER_CLAIM.")
    var oidcUserClaim: String?
    @Option(help: "Members of this group (the groups claim) act as ops; also CANTEEN_OIDC_OPS_GROUP.")
    var oidcOpsGroup: String?
    @Option(help: "A proxy whose X-Forwarded-For is believed (CIDR, repeatable), e.g. 10.0.0.5/32.")
    var trustedProxy: [String] = []
    @Flag(help: "Keep the client's address in request log lines (off by default: it is personal data).")
    var logClientAddress = false

    /// The settings these options and the environment describe; a clear error for a bad or
    /// missing value (an issuer without a client id, an http issuer that is not on loopback, …).
    func settings(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) throws -> IdentitySettings {
        func value(_ option: String?, _ variable: String) -> String? {
            (option ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
        }
        var proxies: [IPAddressRange] = []
        for text in trustedProxy {
            do throws(CanteenError) { proxies.append(try IPAddressRange.network(text)) } catch {
                throw ValidationError("--trusted-proxy: \(error.message)")
            }
        }
        var publicURL: PublicURL?
        if let text = value(publicUrl, "CANTEEN_PUBLIC_URL") {
            do throws(CanteenError) { publicURL = try PublicURL(text) } catch {
                throw ValidationError("--public-url: \(error.message)")
            }
        }
        guard let issuer = value(oidcIssuer, "CANTEEN_OIDC_ISSUER") else {
            if value(oidcClientId, "CANTEEN_OIDC_CLIENT_ID") != nil {
                throw ValidationError("--oidc-client-id needs --oidc-issuer (or CANTEEN_OIDC_ISSUER)")
            }
            return IdentitySettings(publicURL: publicURL, trustedProxies: proxies, logClientAddress: logClientAddress)
        }
        guard let publicURL else {
            throw ValidationError(
                "--oidc-issuer needs --public-url (or CANTEEN_PUBLIC_URL): the redirect URI is "
                    + "{public-url}/auth/callback")
        }
        guard let clientID = value(oidcClientId, "CANTEEN_OIDC_CLIENT_ID") else {
            throw ValidationError("--oidc-issuer needs --oidc-client-id (or CANTEEN_OIDC_CLIENT_ID)")
        }
        let secret: String
        if let file = oidcClientSecretFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("--oidc-client-secret-file: \(file) cannot be read")
            }
            secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let fromEnvironment = value(nil, "CANTEEN_OIDC_CLIENT_SECRET") {
            secret = fromEnvironment
        } else {
            throw ValidationError("--oidc-issuer needs --oidc-client-secret-file (or CANTEEN_OIDC_CLIENT_SECRET)")
        }
        do throws(CanteenError) {
            let settings = try OpenIDSettings(
                issuer: issuer, clientID: clientID, clientSecret: secret, publicURL: publicURL,
                userClaim: value(oidcUserClaim, "CANTEEN_OIDC_USER_CLAIM") ?? "sub",
                opsGroup: value(oidcOpsGroup, "CANTEEN_OIDC_OPS_GROUP"))
            return IdentitySettings(
                publicURL: publicURL, provider: OpenIDProvider(settings: settings, logger: logger),
                trustedProxies: proxies, logClientAddress: logClientAddress)
        } catch {
            throw ValidationError("\(error.field ?? "sign-in"): \(error.message)")
        }
    }
}
