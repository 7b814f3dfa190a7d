import Foundation
import CanteenCore
import CanteenFormat
import Hummingbird

/// Verifies a bearer token when one is sent; a malformed or unknown one is rejected with 401.
/// Routes decide which roles they need (`context.require(.ops)`). `GET /healthz` and the pages
/// (`/kds`, `/kiosk`, `/board` and their `/assets/…`) need no token and ignore whatever
/// `Authorization` a health checker or a browser sends. Part of `APIMiddleware`.
struct Authentication: Sendable {
    let tokens: any TokenRepository

    /// Paths answered without looking at `Authorization` at all.
    static let unauthenticatedPaths: Set<String> = ["/healthz", "/kds", "/kiosk", "/board", "/ops"]

    /// `context` with the request's verified token, if it sent one.
    func verified(_ request: Request, _ context: CanteenRequestContext) async throws -> CanteenRequestContext {
        guard let header = request.headers.value(of: .authorization), !Self.unauthenticatedPaths.contains(request.uri.path),
              !request.uri.path.hasPrefix("/assets/")
        else {
            return context
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw CanteenError(.unauthenticated, code: .unauthenticated,
                               message: "the Authorization header must be 'Bearer TOKEN'", field: "Authorization")
        }
        let secret = parts[1].trimmingHTTPWhitespace()
        guard secret.utf8.count <= APILimits.maxTokenBytes, let token = try await tokens.authenticate(secret: secret) else {
            throw CanteenError.unauthenticated
        }
        var context = context
        context.token = token
        return context
    }
}
