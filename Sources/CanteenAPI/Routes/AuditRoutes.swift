import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// The audit log (ops): every change made with an ops or kitchen identity, newest first,
/// `?cafeId=&from=&to=&after=&limit=`.
struct AuditRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/audit") { request, context in try await list(request, context) }
    }

    /// `from`/`to` are RFC 3339 instants (`to` excluded); `after` is the `next` of the page before;
    /// `limit` 1–500 (default 100).
    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let parameters = request.uri.queryParameters
        var query = AuditQuery()
        if let cafeID = parameters.get("cafeId") {
            guard Identifier.isValid(cafeID) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery, message: "'\(cafeID.prefix(64))' is not a café id",
                    field: "cafeId")
            }
            query.cafeID = cafeID
        }
        query.from = try Self.instant(parameters, "from")
        query.to = try Self.instant(parameters, "to")
        if let text = parameters.get("after") {
            guard let cursor = Int64(text), cursor > 0 else {
                throw CanteenError(
                    .malformed, code: .invalidCursor, message: "'\(text.prefix(40))' is not a cursor this log gave out",
                    field: "after")
            }
            query.after = cursor
        }
        if let text = parameters.get("limit") {
            guard let limit = Int(text), (1...AuditQuery.maximumLimit).contains(limit) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "limit is a whole number from 1 to \(AuditQuery.maximumLimit)", field: "limit")
            }
            query.limit = limit
        }
        let page = try await services.audit.auditEntries(query)
        let body: JSONValue = .object([
            "entries": .array(page.entries.map(Self.entry)),
            "next": page.next.map { .string(String($0)) } ?? .null,
        ])
        return JSONResponse.make(encoded: body.encoded())
    }

    private static func instant(_ parameters: Parameters, _ name: String) throws -> Date? {
        guard let text = parameters.get(name) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw CanteenError(
                .invalid, code: .invalidTimestamp,
                message: "'\(text.prefix(40))' is not an RFC 3339 date-time such as 2026-11-23T09:00:00Z",
                field: name)
        }
        return date
    }

    /// One entry as the API shows it: `before`/`after` absent when the field did not exist.
    static func entry(_ entry: AuditEntry) -> JSONValue {
        let optional = { (text: String?) in text.map(JSONValue.string) ?? .null }
        return .object([
            "id": .string(String(entry.id)),
            "at": .string(RFC3339.utcSeconds(entry.at)),
            "actor": .object([
                "tokenId": optional(entry.actor.tokenID), "tokenName": optional(entry.actor.tokenName),
                "role": .string(entry.actor.role), "userId": optional(entry.actor.userID),
            ]),
            "action": .string(entry.action),
            "target": .object(["kind": .string(entry.targetKind), "id": .string(entry.targetID)]),
            "cafeId": optional(entry.cafeID),
            "changes": .array(entry.changes.map(\.json)),
        ])
    }
}
