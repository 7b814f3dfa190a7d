import CanteenCore
import CanteenFormat
import Foundation
import HTTPTypes
import Hummingbird

/// How a ticket event stream presents its token: `Authorization: Bearer` like every other
/// request, or, from a page's `EventSource` (which cannot send headers), the `canteen_token`
/// cookie that the page sets for the stream's own path alone just before it opens it.
///
/// The cookie is read on that route only, never as a general credential: no other route,
/// least of all one that changes something, can be reached with it. It stays out of URLs (no
/// proxy's access log, no `Referer`), Canteen logs no header, and the server never sends it back.
/// The page sets it `SameSite=Strict` (`Secure` over https), so another site's page never has it
/// sent; a request that says it comes from another origin (`Origin`, `Sec-Fetch-Site`) is
/// refused all the same.
struct StreamCredential {
    /// The cookie's name.
    static let cookieName = "canteen_token"

    /// The token's secret and whether it came from the cookie.
    let secret: String
    let fromCookie: Bool

    /// The credential the request presents (its bearer token first), or nil.
    init?(_ request: Request) {
        if let header = request.headers.value(of: .authorization) {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            secret = parts[1].trimmingHTTPWhitespace()
            fromCookie = false
            return
        }
        guard let value = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) else { return nil }
        secret = value.removingPercentEncoding ?? value
        fromCookie = true
    }

    /// The value of the cookie `name` in `Cookie` header values (`a=1; b=2`).
    static func cookie(_ name: String, in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingHTTPWhitespace() == name else { continue }
                return parts[1].trimmingHTTPWhitespace()
            }
        }
        return nil
    }

    /// `context` with the token of the cookie when the request sent no bearer token (the
    /// middleware verified that one already); 401 for an unknown token, 403 for a cookie sent
    /// from another origin.
    func authenticated(
        _ context: CanteenRequestContext, isSameOrigin: Bool,
        tokens: any TokenRepository
    ) async throws -> CanteenRequestContext {
        guard fromCookie else { return context }
        guard isSameOrigin else {
            throw CanteenError(
                .forbidden, code: .forbidden,
                message: "the token cookie is accepted from this server's own pages only")
        }
        guard secret.utf8.count <= APILimits.maxTokenBytes, let token = try await tokens.authenticate(secret: secret)
        else {
            throw CanteenError.unauthenticated
        }
        var context = context
        context.token = token
        return context
    }

    /// Whether the request was not sent by another origin's page: no `Origin` or one naming
    /// this server's `Host`, and no `Sec-Fetch-Site` other than `same-origin` or `none`.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            return false
        }
        guard let origin = request.headers.value(of: HTTPField.Name("Origin")!) else { return true }
        // HTTP/1's `Host` arrives as the request's authority.
        guard let host = request.head.authority ?? request.headers.value(of: HTTPField.Name("Host")!),
            let separator = origin.range(of: "://")
        else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }
}
