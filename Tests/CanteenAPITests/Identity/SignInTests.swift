import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenIdentity
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Signing people in with OpenID Connect, against the test provider (a real HTTP server on
/// loopback, `Tests/IdentityProvider/provider.py`): the code flow as a browser runs it, and every
/// refusal OpenID Connect Core §3.1.3.7, RFC 7636 and RFC 9700 ask for.
@Suite("Signing in with the company's identity provider")
struct SignInTests {
    // MARK: - The flow

    @Test("a sign-in runs the code flow with PKCE, state and nonce, and opens a session behind an HttpOnly cookie")
    func signIn() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                // Given the browser starts signing in
                let (authorization, cookie, setCookie) = try await fixture.startLogin(
                    client, next: "/app?cafe=testcafe")
                let query = try #require(URLComponents(string: authorization)?.queryItems)
                let item = { (name: String) in query.first { $0.name == name }?.value }
                #expect(authorization.hasPrefix(fixture.provider.issuer + "/authorize?"))
                #expect(item("response_type") == "code")
                #expect(item("client_id") == TestIdentityProvider.clientID)
                #expect(item("redirect_uri") == "https://canteen.test/auth/callback")
                #expect(item("scope") == "openid profile email")
                #expect(item("code_challenge_method") == "S256")
                #expect((item("code_challenge") ?? "").count == 43)
                #expect((item("state") ?? "").count >= 43 && (item("nonce") ?? "").count >= 43)
                #expect(
                    setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Secure")
                )
                #expect(setCookie.contains("Path=/auth") && setCookie.contains("Max-Age=600"))
                // When they sign in at the provider's form and come back
                let redirect = try await fixture.provider.signIn(at: authorization)
                let response = try await fixture.callback(client, try fixture.callbackPath(redirect), cookie: cookie)
                // Then they are sent where they were going, with a session cookie
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/app?cafe=testcafe")
                let session = try #require(
                    response.headers[values: .setCookie].first { $0.hasPrefix("__Host-canteen_session=") })
                for attribute in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/"] {
                    #expect(session.contains(attribute), "the session cookie lacks \(attribute): \(session)")
                }
                let me = try await fixture.send(client, .get, "/v1/me", cookie: String(session.prefix { $0 != ";" }))
                #expect(me.status == .ok)
                #expect(
                    try me.json == [
                        "userId": "u-alice", "name": "Alice Example", "email": "alice@example.com",
                        "role": "user",
                    ])
            }
        }
    }

    @Test("on a plain-http public URL (loopback) the cookies are not Secure and have no __Host- prefix")
    func plainHTTP() async throws {
        try await SignInFixture.with(publicURL: "http://127.0.0.1:8080") { fixture in
            try await fixture.withRouter { client in
                let response = try await fixture.signIn(client)
                let session = try #require(
                    response.headers[values: .setCookie].first { $0.hasPrefix("canteen_session=") })
                #expect(!session.contains("Secure"))
                #expect(session.contains("HttpOnly") && session.contains("SameSite=Lax"))
            }
        }
    }

    @Test("members of the ops group act as ops; everyone else as user")
    func opsGroup() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let olga = try await fixture.session(client, user: "olga")
                #expect(try await fixture.send(client, .get, "/v1/me", cookie: olga).json["role"] == "ops")
                #expect(try await fixture.send(client, .get, "/v1/tokens", cookie: olga).status == .ok)
                let alice = try await fixture.session(client, user: "alice")
                #expect(try await fixture.send(client, .get, "/v1/tokens", cookie: alice).status == .forbidden)
            }
        }
    }

    @Test("the session secret is stored only as a hash, and the sign-in's row is gone after the callback")
    func storedAsHash() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let secret = String(cookie.drop { $0 != "=" }.dropFirst())
                #expect(try await fixture.environment.rowCount("userSession") == 1)
                #expect(try await fixture.environment.rowCount("loginAttempt") == 0)
                let found = try await fixture.environment.stores.sqliteDatabase!.writer.read { db in
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM userSession WHERE id LIKE ? OR userId LIKE ? OR hex(secretHash) LIKE ?
                            """, arguments: ["%\(secret)%", "%\(secret)%", "%\(secret)%"])
                }
                #expect(found == 0)
            }
        }
    }

    // MARK: - Sessions

    @Test("logout ends the session: the cookie no longer works and the row is gone")
    func logout() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let out = try await fixture.send(
                    client, .post, "/auth/logout", cookie: cookie, origin: "https://canteen.test")
                #expect(out.status == .noContent)
                #expect(
                    out.headers[values: .setCookie].contains {
                        $0.hasPrefix("__Host-canteen_session=;") && $0.contains("Max-Age=0")
                    })
                #expect(try await fixture.send(client, .get, "/v1/me", cookie: cookie).status == .unauthorized)
                #expect(try await fixture.environment.rowCount("userSession") == 0)
            }
        }
    }

    @Test("logout from another site (wrong Origin) is refused and the session goes on")
    func logoutFromElsewhere() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let out = try await fixture.send(
                    client, .post, "/auth/logout", cookie: cookie, origin: "https://evil.test")
                #expect(out.status == .forbidden)
                #expect(out.errorCode == "origin_mismatch")
                #expect(try await fixture.send(client, .get, "/v1/me", cookie: cookie).status == .ok)
            }
        }
    }

    @Test("a session idle for more than 12 hours is over; one in use lives on")
    func idleExpiry() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let clock = fixture.environment.clock
                // Used every 11 hours, it stays.
                for _ in 0..<3 {
                    clock.advance(by: 11 * 3600)
                    #expect(try await fixture.send(client, .get, "/v1/me", cookie: cookie).status == .ok)
                }
                // Idle for 12 hours and a second, it is over (and deleted).
                clock.advance(by: 12 * 3600 + 1)
                let late = try await fixture.send(client, .get, "/v1/me", cookie: cookie)
                #expect(late.status == .unauthorized)
                #expect(try await fixture.environment.rowCount("userSession") == 0)
            }
        }
    }

    @Test("writes made with the session cookie need the public URL's Origin; reads do not")
    func originCheck() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let path = "/v1/users/u-alice/preferences/theme"
                for origin in [nil, "https://evil.test", "http://canteen.test", "https://canteen.test:8443", "null"] {
                    let response = try await fixture.send(
                        client, .put, path, cookie: cookie, origin: origin, json: "blue")
                    #expect(response.status == .forbidden, "Origin \(origin ?? "missing")")
                    #expect(response.errorCode == "origin_mismatch")
                    #expect(response.errorField == "Origin")
                }
                #expect(try await fixture.environment.rowCount("userPreferences") == 0)
                let allowed = try await fixture.send(
                    client, .put, path, cookie: cookie, origin: "https://canteen.test",
                    json: "blue")
                #expect(allowed.status == .ok)
                #expect(try await fixture.send(client, .get, path, cookie: cookie).status == .ok)
                // A bearer token is not a browser's ambient credential: no Origin needed.
                let token = try await fixture.environment.stores.tokens.createToken(
                    TokenSpec(role: .user, userID: "u-alice"))
                #expect(try await client.send(.put, path, token: token.secret, json: "green").status == .ok)
            }
        }
    }

    @Test("a signed-in person is a user: their own preferences, café and orders, nobody else's")
    func userRules() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let cookie = try await fixture.session(client)
                let origin = "https://canteen.test"
                #expect(
                    try await fixture.send(client, .get, "/v1/users/u-alice/preferences", cookie: cookie).status == .ok)
                #expect(
                    try await fixture.send(client, .get, "/v1/users/u-bob/preferences", cookie: cookie).status
                        == .forbidden)
                #expect(
                    try await fixture.send(client, .post, "/v1/users/u-alice/cafe", cookie: cookie, origin: origin)
                        .status == .ok)
                #expect(
                    try await fixture.send(client, .post, "/v1/users/u-bob/cafe", cookie: cookie, origin: origin)
                        .status == .forbidden)
                let order: JSONValue = [
                    "cafeId": "testcafe", "customer": ["name": "Alice"],
                    "lines": [["itemId": "latte", "quantity": 1, "options": ["small"]]],
                ]
                let placed = try await fixture.send(
                    client, .post, "/v1/orders", cookie: cookie, origin: origin, json: order,
                    headers: [HTTPField.Name("Idempotency-Key")!: "basket-1"])
                #expect(placed.status == .created)
                #expect(try placed.json["customer", "userId"] == "u-alice")
                let id = try #require(try placed.json["id"]?.stringValue)
                #expect(try await fixture.send(client, .get, "/v1/orders/\(id)", cookie: cookie).status == .ok)
                var forBob = order
                if case .object(var object) = forBob {
                    object["customer"] = ["name": "Bob", "userId": "u-bob"]; forBob = .object(object)
                }
                let refused = try await fixture.send(
                    client, .post, "/v1/orders", cookie: cookie, origin: origin, json: forBob,
                    headers: [HTTPField.Name("Idempotency-Key")!: "basket-2"])
                #expect(refused.status == .forbidden)
                // Someone else's order cannot be followed.
                let bobs = try await client.send(
                    .post, "/v1/orders", token: fixture.environment.kiosk, json: forBob,
                    headers: [HTTPField.Name("Idempotency-Key")!: "kiosk-1"])
                let bobsID = try #require(try bobs.json["id"]?.stringValue)
                #expect(
                    try await fixture.send(client, .get, "/v1/orders/\(bobsID)", cookie: cookie).status == .forbidden)
                #expect(
                    try await fixture.send(client, .get, "/v1/orders/\(bobsID)/events", cookie: cookie).status
                        == .forbidden)
            }
        }
    }

    // MARK: - Refusals of the callback

    @Test("a callback with another state than this browser's sign-in is refused, and the sign-in is spent")
    func stateMismatch() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let (authorization, cookie, _) = try await fixture.startLogin(client)
                let redirect = try await fixture.provider.signIn(at: authorization)
                var components = try #require(URLComponents(string: redirect))
                let good = components.queryItems!
                components.queryItems = good.map {
                    $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0
                }
                let forged = try await fixture.callback(
                    client, try fixture.callbackPath(components.string!), cookie: cookie)
                #expect(forged.status == .badRequest)
                #expect(forged.errorCode == "sign_in_state_mismatch")
                // Single use: the same browser cannot try again with the right state.
                let again = try await fixture.callback(client, try fixture.callbackPath(redirect), cookie: cookie)
                #expect(again.errorCode == "sign_in_state_mismatch")
                #expect(try await fixture.environment.rowCount("userSession") == 0)
            }
        }
    }

    @Test("a callback without this browser's sign-in cookie is refused (a login started in another browser)")
    func otherBrowser() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let (authorization, _, _) = try await fixture.startLogin(client)
                let redirect = try await fixture.provider.signIn(at: authorization)
                let (_, otherCookie, _) = try await fixture.startLogin(client)
                for cookie in [nil, otherCookie] {
                    let response = try await fixture.callback(
                        client, try fixture.callbackPath(redirect), cookie: cookie)
                    #expect(response.errorCode == "sign_in_state_mismatch")
                }
            }
        }
    }

    @Test("a sign-in that comes back after 10 minutes is refused")
    func slowSignIn() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let (authorization, cookie, _) = try await fixture.startLogin(client)
                let redirect = try await fixture.provider.signIn(at: authorization)
                fixture.environment.clock.advance(by: 601)
                let response = try await fixture.callback(client, try fixture.callbackPath(redirect), cookie: cookie)
                #expect(response.errorCode == "sign_in_state_mismatch")
            }
        }
    }

    @Test(
        "a PKCE verifier that does not match the challenge makes the provider refuse the code, and Canteen the sign-in")
    func pkceMismatch() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let response = try await fixture.signIn(client) {
                    try await fixture.provider.control(
                        "next-code", ["codeChallenge": "not-the-challenge-of-the-verifier"])
                }
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "token_exchange_failed")
                #expect(String(buffer: response.body).contains("invalid_grant"))
                #expect(try await fixture.environment.rowCount("userSession") == 0)
            }
        }
    }

    @Test(
        "a client secret the provider does not know makes it refuse the code exchange (invalid_client), and Canteen the sign-in"
    )
    func wrongClientSecret() async throws {
        try await SignInFixture.with(clientSecret: "not-the-registered-secret") { fixture in
            try await fixture.withRouter { client in
                // Given Canteen was started with a wrong client secret, when someone signs in
                let response = try await fixture.signIn(client)
                // Then the provider refuses to exchange the code, and no session is opened
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "token_exchange_failed")
                let body = String(buffer: response.body)
                #expect(body.contains("invalid_client"), "\(body)")
                #expect(!body.contains("not-the-registered-secret"), "the secret is never echoed")
                #expect(response.headers[values: .setCookie].allSatisfy { !$0.contains("canteen_session=") })
                #expect(try await fixture.environment.rowCount("userSession") == 0)
            }
        }
    }

    @Test("the provider saying no (error=access_denied) is a clear refusal")
    func providerDenied() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let (authorization, cookie, _) = try await fixture.startLogin(client)
                let state = try #require(
                    URLComponents(string: authorization)?.queryItems?.first { $0.name == "state" }?.value)
                let response = try await fixture.callback(
                    client, "/auth/callback?error=access_denied&state=\(state)",
                    cookie: cookie)
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "sign_in_denied")
            }
        }
    }

    // MARK: - Refusals of the ID token

    /// The ID tokens a provider must never get away with, made by the test provider on purpose,
    /// and the check each must fail.
    static let spoiledTokens: [(String, JSONValue, String)] = [
        ("a broken signature", ["sign": ["mode": "bad-signature"]], "signature"),
        ("alg none", ["sign": ["mode": "none"]], "algorithm"),
        ("HMAC keyed with the provider's public key", ["sign": ["mode": "hmac"]], "algorithm"),
        ("another issuer", ["claims": ["iss": "https://evil.example.com"]], "issuer"),
        ("another audience", ["claims": ["aud": "someone-else"]], "audience"),
        ("several audiences without azp", ["claims": ["aud": ["canteen", "someone-else"]]], "authorized_party"),
        (
            "several audiences, azp another client", ["claims": ["aud": ["canteen", "x"], "azp": "x"]],
            "authorized_party"
        ),
        ("expired 61 s ago", ["claims": ["exp": "NOW-61"]], "expiry"),
        ("issued 61 s in the future", ["claims": ["iat": "NOW+61"]], "issued_at"),
        ("no exp", ["claims": ["exp": .null]], "expiry"),
        ("another nonce", ["claims": ["nonce": "replayed-nonce"]], "nonce"),
        ("no nonce", ["claims": ["nonce": .null]], "nonce"),
        ("a key the provider never published", ["sign": ["mode": "unknown-key"]], "key"),
        ("no user claim", ["claims": ["sub": .null]], "subject"),
    ]

    @Test(
        "an ID token that fails a check is refused, naming the check, and no session is opened",
        arguments: spoiledTokens)
    func spoiledIDToken(_ spoiled: (String, JSONValue, String)) async throws {
        let (what, spec, check) = spoiled
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let now = Int64(fixture.environment.clock.now.timeIntervalSince1970)
                let response = try await fixture.signIn(client) {
                    try await fixture.provider.control("next-id-token", Self.resolvingTimes(spec, now: now))
                }
                #expect(response.status == .unauthorized, "\(what): \(response.status)")
                #expect(response.errorCode == "token_invalid", "\(what)")
                let message = try response.json["error", "message"]?.stringValue ?? ""
                #expect(message.contains("(\(check))"), "\(what): \(message)")
                #expect(try await fixture.environment.rowCount("userSession") == 0, "\(what)")
            }
        }
    }

    @Test("clocks 59 s apart are tolerated: a token issued 59 s ahead, or expired 59 s ago, is accepted")
    func clockSkew() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let now = Int64(fixture.environment.clock.now.timeIntervalSince1970)
                for claims: JSONValue in [["iat": .int(now + 59)], ["exp": .int(now - 59), "iat": .int(now - 300)]] {
                    let response = try await fixture.signIn(client) {
                        try await fixture.provider.control("next-id-token", ["claims": claims])
                    }
                    #expect(response.status == .seeOther, "\(claims): \(String(buffer: response.body))")
                }
            }
        }
    }

    @Test("an ID token signed with the provider's ES256 key is accepted as well as RS256")
    func es256() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let response = try await fixture.signIn(client) {
                    try await fixture.provider.control("next-id-token", ["sign": ["kid": "ec-1"]])
                }
                #expect(response.status == .seeOther, "\(String(buffer: response.body))")
            }
        }
    }

    // MARK: - Keys

    @Test("a token with an unknown kid makes Canteen fetch the JWKS once more, not again within 10 s")
    func unknownKeyRefetchesOnce() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                _ = try await fixture.session(client)
                let before = try await fixture.provider.jwksFetches()
                #expect(before == 1)
                fixture.environment.clock.advance(by: 11)
                let stranger = try await fixture.provider.mint(sign: ["mode": "unknown-key", "kid": "stranger"])
                #expect(try await client.send(.get, "/v1/me", token: stranger).errorCode == "token_invalid")
                #expect(try await fixture.provider.jwksFetches() == before + 1)
                // Within 10 s of that fetch, more unknown kids cost nothing.
                for kid in ["stranger-2", "stranger-3", "stranger-4"] {
                    let token = try await fixture.provider.mint(sign: ["mode": "unknown-key", "kid": .string(kid)])
                    #expect(try await client.send(.get, "/v1/me", token: token).errorCode == "token_invalid")
                }
                #expect(try await fixture.provider.jwksFetches() == before + 1)
                // After 10 s, one more.
                fixture.environment.clock.advance(by: 10)
                let later = try await fixture.provider.mint(sign: ["mode": "unknown-key", "kid": "stranger-5"])
                #expect(try await client.send(.get, "/v1/me", token: later).errorCode == "token_invalid")
                #expect(try await fixture.provider.jwksFetches() == before + 2)
            }
        }
    }

    @Test("a key rotation at the provider needs no restart: the new key is fetched when first used")
    func rotation() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                _ = try await fixture.session(client)
                #expect(try await fixture.provider.jwksFetches() == 1)
                fixture.environment.clock.advance(by: 30)
                try await fixture.provider.setClock(fixture.environment.clock.now)
                try await fixture.provider.control("rotate", ["kid": "rsa-2", "retire": ["rsa-1"]])
                let cookie = try await fixture.session(client, user: "olga")
                #expect(try await fixture.send(client, .get, "/v1/me", cookie: cookie).status == .ok)
                #expect(try await fixture.provider.jwksFetches() == 2)
                // Tokens signed with the retired key are refused from now on.
                let old = try await fixture.provider.mint(sign: ["mode": "unknown-key", "kid": "rsa-1"])
                #expect(try await client.send(.get, "/v1/me", token: old).errorCode == "token_invalid")
            }
        }
    }

    // MARK: - Access tokens

    @Test("the provider's JWT access token works as a bearer token, for its own user only")
    func accessToken() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let token = try await fixture.provider.mint()
                let me = try await client.send(.get, "/v1/me", token: token)
                #expect(me.status == .ok)
                #expect(try me.json["userId"] == "u-alice")
                #expect(try await client.send(.get, "/v1/users/u-alice/preferences", token: token).status == .ok)
                #expect(try await client.send(.get, "/v1/users/u-bob/preferences", token: token).status == .forbidden)
                // A bearer token needs no Origin for writes.
                #expect(
                    try await client.send(.put, "/v1/users/u-alice/preferences/theme", token: token, json: "blue")
                        .status == .ok)
            }
        }
    }

    @Test("an access token for another audience, expired, or of another issuer is refused")
    func spoiledAccessTokens() async throws {
        try await SignInFixture.with { fixture in
            try await fixture.withRouter { client in
                let now = Int64(fixture.environment.clock.now.timeIntervalSince1970)
                let cases: [(String, [String: JSONValue], [String: JSONValue])] = [
                    ("audience", ["aud": "another-api"], [:]),
                    ("expiry", ["exp": .int(now - 120)], [:]),
                    ("issuer", ["iss": "https://evil.example.com"], [:]),
                    ("algorithm", [:], ["mode": "none"]),
                    ("algorithm", [:], ["mode": "hmac"]),
                    ("signature", [:], ["mode": "bad-signature"]),
                ]
                for (check, claims, sign) in cases {
                    let token = try await fixture.provider.mint(claims: claims, sign: sign)
                    let response = try await client.send(.get, "/v1/me", token: token)
                    #expect(response.status == .unauthorized, "\(check)")
                    #expect(response.errorCode == "token_invalid", "\(check)")
                    #expect(
                        try response.json["error", "message"]?.stringValue?.contains("(\(check))") == true,
                        "\(check): \(String(buffer: response.body))")
                }
            }
        }
    }

    // MARK: - Configuration

    @Test("an http issuer is accepted only on a loopback address")
    func httpIssuer() throws {
        let publicURL = try PublicURL("https://canteen.example.com")
        for issuer in ["http://login.example.com", "http://10.0.0.5:8080", "http://[2001:db8::1]/realms/x"] {
            #expect(throws: CanteenError.self, "\(issuer)") {
                try OpenIDSettings(issuer: issuer, clientID: "c", clientSecret: "s", publicURL: publicURL)
            }
        }
        for issuer in [
            "https://login.example.com", "http://127.0.0.1:9000", "http://localhost:9000/realms/x",
            "http://[::1]:9000",
        ] {
            #expect(throws: Never.self, "\(issuer)") {
                try OpenIDSettings(issuer: issuer, clientID: "c", clientSecret: "s", publicURL: publicURL)
            }
        }
        let settings = try OpenIDSettings(
            issuer: "https://login.example.com/", clientID: "c", clientSecret: "s",
            publicURL: publicURL)
        #expect(settings.redirectURI == "https://canteen.example.com/auth/callback")
        #expect(settings.discoveryURL == "https://login.example.com/.well-known/openid-configuration")
    }

    @Test("a discovery document naming another issuer is not used")
    func discoveryIssuerMismatch() async throws {
        try await SignInFixture.with { fixture in
            // The provider answers as 127.0.0.1; configured as localhost, the issuer differs.
            let issuer = fixture.provider.issuer.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let settings = try OpenIDSettings(
                issuer: issuer, clientID: "canteen", clientSecret: "canteen-secret",
                publicURL: try PublicURL("https://canteen.test"))
            await #expect(throws: CanteenError.self) {
                try await OpenIDProvider(settings: settings).metadata()
            }
        }
    }

    @Test("without a provider, /auth/login says sign-in is not available and the API works with tokens as before")
    func tokensOnly() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let login = try await client.send(.get, "/auth/login")
            #expect(login.status == .notFound)
            #expect(login.errorCode == "sign_in_unavailable")
            // A cookie that looks like a session is ignored, not an error.
            let cafes = try await client.send(
                .get, "/v1/cafes", token: environment.kiosk,
                headers: [.cookie: "canteen_session=cns_whatever"])
            #expect(cafes.status == .ok)
        }
    }

    /// `"NOW-61"` and `"NOW+61"` in a spec, as instants around the test clock's `now`.
    static func resolvingTimes(_ value: JSONValue, now: Int64) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("NOW"):
            return .int(now + (Int64(text.dropFirst(3)) ?? 0))
        case .object(let object): return .object(object.mapValues { resolvingTimes($0, now: now) })
        case .array(let array): return .array(array.map { resolvingTimes($0, now: now) })
        default: return value
        }
    }
}
