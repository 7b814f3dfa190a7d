import CanteenCore
import Hummingbird

/// The site domain of preferences: defaults every user sees until they set their own (ops only).
struct SitePreferenceRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/preferences/defaults") { _, context in try await list(context) }
        routes.on(.get, "/v1/preferences/defaults/:key") { _, context in try await read(context) }
        routes.on(.put, "/v1/preferences/defaults/:key") { request, context in try await write(request, context) }
        routes.on(.delete, "/v1/preferences/defaults/:key") { _, context in try await remove(context) }
    }

    func list(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        return try JSONResponse.make(SiteDefaultsDTO(values: try await services.preferences.siteDefaults()))
    }

    func read(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let key = try PreferenceRoutes.key(context)
        guard let value = try await services.preferences.siteDefaults()[key] else { throw PreferenceKey.notFound(key) }
        return try JSONResponse.make(PreferenceDTO(ResolvedPreference(key: key, value: value, source: .site)))
    }

    /// The body is the value itself, validated as a user's value is.
    func write(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let key = try PreferenceRoutes.key(context)
        var request = request
        let value = try await request.jsonBody()
        try await services.preferences.setSiteDefault(
            key: key, value: value, audit: context.audit("site_preference.set", "site_preference", key, cafe: nil))
        return try JSONResponse.make(PreferenceDTO(ResolvedPreference(key: key, value: value, source: .site)))
    }

    func remove(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let key = try PreferenceRoutes.key(context)
        try await services.preferences.removeSiteDefault(
            key: key, audit: context.audit("site_preference.remove", "site_preference", key, cafe: nil))
        return Response(status: .noContent)
    }
}
