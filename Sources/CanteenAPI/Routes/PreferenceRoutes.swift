import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// A user's preferences, read merged over user → site → registered, written to the user's own
/// document (a kiosk acting for the user, or ops). Every write takes `If-Match` and answers the
/// new `ETag`.
struct PreferenceRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/users/:userId/preferences") { _, context in try await readAll(context) }
        routes.on(.patch, "/v1/users/:userId/preferences") { request, context in try await merge(request, context) }
        routes.on(.get, "/v1/users/:userId/preferences/:key") { _, context in try await read(context) }
        routes.on(.put, "/v1/users/:userId/preferences/:key") { request, context in try await write(request, context) }
        routes.on(.delete, "/v1/users/:userId/preferences/:key") { request, context in
            try await remove(request, context)
        }
    }

    // MARK: - Reads

    func readAll(_ context: CanteenRequestContext) async throws -> Response {
        let userID = try authorizedUser(context)
        let merged = try await services.preferences.merged(userID: userID)
        return try JSONResponse.make(MergedPreferencesDTO(merged), headers: Self.etag(merged.version))
    }

    func read(_ context: CanteenRequestContext) async throws -> Response {
        let userID = try authorizedUser(context)
        let key = try Self.key(context)
        let searchList = try await services.preferences.searchList(userID: userID)
        guard let resolved = searchList.value(for: key) else { throw PreferenceKey.notFound(key) }
        return try JSONResponse.make(PreferenceDTO(resolved), headers: Self.etag(searchList.user.version))
    }

    // MARK: - Writes

    /// `{"key": value, "gone": null}`: sets and removes in one write, all or nothing.
    func merge(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let userID = try authorizedUser(context)
        var request = request
        let body = try await request.jsonBody()
        guard let object = body.objectValue else {
            throw CanteenError(
                .invalid, code: .invalidPreferences,
                message: "PATCH takes a JSON object of keys to values (null removes a key), not \(body.typeName)")
        }
        let changes = object.mapValues { $0 == .null ? PreferenceChange.remove : .set($0) }
        try Self.checkShapes(changes)
        let document = try await services.preferences.update(
            userID: userID, changes: changes,
            condition: Self.condition(request))
        // The document just written, so the values match the ETag even if another write follows.
        let merged = PreferenceSearchList(user: document, site: try await services.preferences.siteDefaults()).merged
        return try JSONResponse.make(MergedPreferencesDTO(merged), headers: Self.etag(document.version))
    }

    /// The body is the value itself (any JSON but null: DELETE removes a key).
    func write(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let userID = try authorizedUser(context)
        let key = try Self.key(context)
        var request = request
        let value = try await request.jsonBody()
        try Self.checkShapes([key: .set(value)])
        let document = try await services.preferences.update(
            userID: userID, changes: [key: .set(value)],
            condition: Self.condition(request))
        return try JSONResponse.make(
            PreferenceDTO(ResolvedPreference(key: key, value: value, source: .user)),
            headers: Self.etag(document.version))
    }

    /// Removes the user's own value (404 when they have none), so the key falls through to the
    /// site and registered defaults.
    func remove(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        let userID = try authorizedUser(context)
        let key = try Self.key(context)
        let current = try await services.preferences.document(userID: userID)
        guard current.values[key] != nil else { throw PreferenceKey.notFound(key) }
        let document = try await services.preferences.update(
            userID: userID, changes: [key: .remove],
            condition: Self.condition(request))
        return Response(status: .noContent, headers: Self.etag(document.version))
    }

    // MARK: - Request parts

    /// The `userId` of the path, once the token may act for that user (kiosk or ops for anyone,
    /// a user token for its own user; 403 otherwise).
    private func authorizedUser(_ context: CanteenRequestContext) throws -> String {
        try Self.authorizedUser(context)
    }

    static func authorizedUser(_ context: CanteenRequestContext) throws -> String {
        _ = try context.requireToken()
        let userID = try decodedPath(context, "userId")
        try context.requireActing(forUser: userID)
        try UserID.validate(userID)
        return userID
    }

    /// The percent-decoded `key` of the path, checked for shape.
    static func key(_ context: CanteenRequestContext) throws(CanteenError) -> String {
        let key = try decodedPath(context, "key")
        try PreferenceKey.validate(key)
        return key
    }

    /// A path parameter with its percent-encoding undone (`app%2Ftheme` → `app/theme`).
    static func decodedPath(_ context: CanteenRequestContext, _ name: String) throws(CanteenError) -> String {
        let raw = try context.parameters.path(name)
        guard let decoded = raw.removingPercentEncoding else {
            throw CanteenError(
                .invalid, code: .invalidField, message: "'\(raw.prefix(140))' has a broken %-escape",
                field: name)
        }
        return decoded
    }

    /// Every key and value of a write checked for shape before its `If-Match` is (a body that can
    /// never be stored is 422 whatever the version); whether a named café exists is checked with
    /// the document, once the version matches.
    static func checkShapes(_ changes: [String: PreferenceChange]) throws {
        for key in changes.keys.sorted() {
            guard case .set(let value) = changes[key] else {
                try PreferenceKey.validate(key)
                continue
            }
            try PreferenceKey.validate(value, for: key, cafeExists: { _ in true })
        }
    }

    static func condition(_ request: Request) -> VersionPrecondition? {
        request.headers[.ifMatch].map(EntityTags.precondition(ifMatch:))
    }

    static func etag(_ version: Int64) -> HTTPFields {
        var headers = HTTPFields()
        headers.setValidator(EntityTags.tag(version))
        return headers
    }
}
