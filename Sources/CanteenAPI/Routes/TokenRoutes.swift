import CanteenCore
import Hummingbird

/// `GET /v1/token`: what the presented token is (its id, role and café), so that a page can
/// tell at once when it was given the wrong kind of token. Never the secret.
struct TokenRoutes {
    struct TokenDTO: Encodable {
        let id: String
        let role: String
        let cafeId: String?
        let name: String?

        /// `cafeId` and `name` are always present, null when the token has none.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(role, forKey: .role)
            try container.encode(cafeId, forKey: .cafeId)
            try container.encode(name, forKey: .name)
        }

        enum CodingKeys: String, CodingKey { case id, role, cafeId, name }
    }

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/token") { _, context in
            let token = try context.requireToken()
            return try JSONResponse.make(TokenDTO(id: token.id, role: token.role.rawValue, cafeId: token.cafeID,
                                                  name: token.name))
        }
    }
}
