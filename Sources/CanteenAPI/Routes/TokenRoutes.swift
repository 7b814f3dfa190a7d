import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// Access tokens (ops): list them (never their secrets), create one (its secret is in that one
/// answer only), revoke one. The same as `canteen tokens list|create|revoke`. And for any token,
/// `GET /v1/token`: what the presented token is, so that a page can tell at once when it was given
/// the wrong kind of token.
struct TokenRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/tokens") { _, context in try await list(context) }
        routes.on(.post, "/v1/tokens") { request, context in try await create(request, context) }
        routes.on(.delete, "/v1/tokens/:tokenId") { _, context in try await revoke(context) }
        routes.on(.get, "/v1/token") { _, context in try JSONResponse.make(TokenDTO(try context.requireToken())) }
    }

    func list(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        return try JSONResponse.make(TokenListDTO(tokens: try await services.tokens.tokens().map(TokenDTO.init)))
    }

    /// `{"role", "cafeId", "userId", "name"}` → 201 `{"token": {...}, "secret": "cnt_…"}`.
    func create(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        var request = request
        let spec = try Self.readSpec(try await request.jsonBody())
        let (token, secret) = try await services.tokens.createToken(
            spec, audit: context.audit("token.create", "token", "", cafe: spec.cafeID))
        return try JSONResponse.make(
            CreatedTokenDTO(token: TokenDTO(token), secret: secret), status: .created,
            headers: [.location: "/v1/tokens/\(token.id)"])
    }

    /// Revokes at once (204); revoking a revoked token again is 204 too.
    func revoke(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("tokenId")
        try await services.tokens.revokeToken(id: id, audit: context.audit("token.revoke", "token", id, cafe: nil))
        return Response(status: .noContent)
    }

    static func readSpec(_ body: JSONValue) throws(ValidationError) -> TokenSpec {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(body, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let roleText = reader.string("role")
        let cafeID = reader.string("cafeId", required: false)
        let userID = reader.string("userId", required: false)
        let name = reader.string("name", required: false, limit: TokenSpec.maxNameLength, kind: .name)
        reader.finish()
        var role: Role?
        if let roleText {
            role = Role(rawValue: roleText)
            if role == nil {
                problems.add(
                    "role",
                    "'\(roleText.prefix(40))' is not one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        try problems.throwIfAny()
        let spec = TokenSpec(role: role!, cafeID: cafeID, userID: userID, name: name)
        do {
            try spec.validate()
        } catch {
            throw ValidationError(problems: [
                ValidationProblem(path: error.field ?? "", message: error.message, code: error.code)
            ])
        }
        return spec
    }
}

/// A token as ops see it: never its secret.
struct TokenDTO: Encodable {
    let id: String
    let role: String
    let cafeId: String?
    let userId: String?
    let name: String?
    let createdAt: Date
    let revokedAt: Date?
    let lastUsedAt: Date?
    let active: Bool

    init(_ token: AccessToken) {
        id = token.id
        role = token.role.rawValue
        cafeId = token.cafeID
        userId = token.userID
        name = token.name
        createdAt = token.createdAt
        revokedAt = token.revokedAt
        lastUsedAt = token.lastUsedAt
        active = token.revokedAt == nil
    }

    enum CodingKeys: String, CodingKey { case id, role, cafeId, userId, name, createdAt, revokedAt, lastUsedAt, active }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(role, forKey: .role)
        try container.encode(cafeId, forKey: .cafeId)
        try container.encode(userId, forKey: .userId)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(revokedAt, forKey: .revokedAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(active, forKey: .active)
    }
}

struct TokenListDTO: Encodable {
    let tokens: [TokenDTO]
}

/// The answer to creating a token: the only time its secret is shown.
struct CreatedTokenDTO: Encodable {
    let token: TokenDTO
    let secret: String
}
