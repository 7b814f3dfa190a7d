import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

extension ContractTour {
    /// The employee's page, signing in with the identity provider, and a person's own data (issue 29).
    func runMe() async throws {
        try await call("GET /app", "/app", token: nil, headers: [.acceptLanguage: "ar"], expecting: 200)
        try await call("GET /app-sw.js", "/app-sw.js", token: nil, expecting: 200)
        try await call("POST /auth/logout", "/auth/logout", token: nil, expecting: 204)
        try await call(
            "GET /auth/callback", "/auth/callback?code=x&state=y", token: nil, expecting: provider == nil ? 404 : 400)
        if let provider {
            // The provider's clock runs on from when it was set, the environment's stands still: set it
            // again, or a tour longer than the 60 s of skew allowed makes its tokens come from the future.
            try await provider.setClock(environment.clock.now)
            let login = try await call("GET /auth/login", "/auth/login?next=/app", token: nil, expecting: 302)
            let loginCookie = try #require(login.headers[values: .setCookie].first).prefix { $0 != ";" }
            let redirect = try await provider.signIn(at: try #require(login.headers[.location]))
            let path = String(redirect.dropFirst(SignInFixture.defaultPublicURL.count))
            let back = try await call(
                "GET /auth/callback", path, token: nil, headers: [.cookie: String(loginCookie)],
                expecting: 303)
            let session = try #require(back.headers[values: .setCookie].first { $0.contains("canteen_session=") })
                .prefix { $0 != ";" }
            try await call("GET /v1/me", "/v1/me", token: nil, headers: [.cookie: String(session)], expecting: 200)
            try await call(
                "POST /auth/logout", "/auth/logout", token: nil,
                headers: [.cookie: String(session), .origin: "https://evil.test"], expecting: 403)
            try await call(
                "POST /auth/logout", "/auth/logout", token: nil,
                headers: [.cookie: String(session), .origin: SignInFixture.defaultPublicURL], expecting: 204)
        } else {
            try await call("GET /auth/login", "/auth/login?next=/app", token: nil, expecting: 404)
        }
        let person = try await environment.stores.tokens.createToken(TokenSpec(role: .user, userID: "u-ada")).secret
        try await call(
            "POST /v1/orders", "/v1/orders", token: person, json: orderBody(name: "Tour"),
            headers: [HTTPField.Name("Idempotency-Key")!: "tour-me"], expecting: 201)
        try await call("GET /v1/me", "/v1/me", token: person, expecting: 200)
        try await call("GET /v1/me", "/v1/me", token: environment.kiosk, expecting: 403)
        try await call("GET /v1/me", "/v1/me", token: nil, expecting: 401)
        let orders = try await call("GET /v1/me/orders", "/v1/me/orders?limit=5", token: person, expecting: 200)
        #expect((try orders.json["orders"]?.arrayCount ?? 0) >= 1)
        try await call("GET /v1/me/orders", "/v1/me/orders?limit=500", token: person, expecting: 422)
        try await call("GET /v1/me/data", "/v1/me/data", token: person, expecting: 200)
        try await call("DELETE /v1/me", "/v1/me", token: environment.ops, expecting: 403)
        try await call("DELETE /v1/me", "/v1/me", token: person, expecting: 204)
        try await call("GET /v1/me", "/v1/me", token: person, expecting: 401)
    }
}

extension JSONValue {
    /// How many elements an array holds (nil for anything else).
    var arrayCount: Int? {
        if case .array(let values) = self { return values.count }
        return nil
    }
}
