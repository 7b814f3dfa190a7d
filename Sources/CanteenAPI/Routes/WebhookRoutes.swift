import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// Webhook endpoints (ops): register (the secret is shown once), list, read, delete, rotate the
/// secret; an endpoint's deliveries with their attempts, and a redelivery.
struct WebhookRoutes {
    let services: APIServices

    /// The most deliveries one listing shows.
    static let maxDeliveries = 200

    /// How long registration waits for the URL's host name to resolve; a name that does not
    /// resolve by then is accepted (every attempt resolves it again, and judges what it finds).
    static let resolutionTimeout: Duration = .seconds(5)

    func register(on routes: RouteTable) {
        routes.on(.post, "/v1/webhooks") { request, context in try await create(request, context) }
        routes.on(.get, "/v1/webhooks") { request, context in try await list(request, context) }
        routes.on(.get, "/v1/webhooks/:webhookId") { request, context in try await read(request, context) }
        routes.on(.delete, "/v1/webhooks/:webhookId") { request, context in try await delete(request, context) }
        routes.on(.post, "/v1/webhooks/:webhookId/rotate-secret") { request, context in
            try await rotate(request, context)
        }
        routes.on(.get, "/v1/webhooks/:webhookId/deliveries") { request, context in
            try await deliveries(request, context)
        }
        routes.on(.post, "/v1/webhooks/:webhookId/deliveries/:eventId/redeliver") { request, context in
            try await redeliver(request, context)
        }
    }

    /// `{"url", "cafeId"?, "events": [...]}`: every problem of the body is reported at once.
    func create(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        var request = request
        let body = try await request.jsonBody()
        let problems = ValidationProblems()
        var url: String?
        var cafeID: String?
        var names: [String] = []
        if var reader = JSONObjectReader(body, path: "", problems: problems) {
            url = reader.string("url")
            cafeID = reader.string("cafeId", required: false)
            // Absent means every café: a null must not widen an endpoint to every café by accident.
            if reader.isNull("cafeId") {
                problems.add("cafeId", "a café id, or no cafeId for every café; not null", code: .invalidType)
            }
            for (path, value) in reader.elements("events") {
                guard let name = value.stringValue else {
                    problems.add(path, "expected an event type, found \(value.typeName)", code: .invalidType)
                    continue
                }
                names.append(name)
            }
            reader.finish()
        }
        try problems.throwIfAny()
        if let cafeID, !Identifier.isValid(cafeID) {
            throw CanteenError(
                .invalid, code: .invalidField, message: "'\(cafeID.prefix(100))' is not a café id", field: "cafeId")
        }
        let registration = try WebhookRegistration(url: url!, cafeID: cafeID, events: names)
        try await checkDestination(registration.url)
        let (endpoint, secret) = try await services.webhooks.createEndpoint(
            registration, audit: context.audit("webhook.create", "webhook", "", cafe: registration.cafeID))
        return JSONResponse.make(
            writing: WebhookDTO(endpoint, secret: secret), status: .created,
            headers: [.location: "/v1/webhooks/\(endpoint.id)"])
    }

    /// Refuses (`webhook_address_not_allowed`, field `url`) a URL whose host is an internal
    /// address, or a name resolving to one, unless the server allows that range.
    private func checkDestination(_ url: String) async throws {
        let destination = try WebhookDestination(url: url)
        let policy = services.webhookPolicy
        let resolver = services.hostResolver
        let verdict = await withTaskGroup(of: WebhookAddressPolicy.Verdict?.self) { group in
            group.addTask { await policy.verdict(for: destination, resolver: resolver) }
            group.addTask {
                try? await Task.sleep(for: Self.resolutionTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard case .refused(let reason) = verdict else { return }
        throw CanteenError(
            .invalid, code: .webhookAddressNotAllowed,
            message: "webhooks are not sent to internal addresses: \(reason); a server started with "
                + "--webhook-allow-private CIDR sends to that range",
            field: "url", parameters: ["reason": reason])
    }

    func list(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let endpoints = try await services.webhooks.endpoints()
        return JSONResponse.make(writing: WebhookListDTO(webhooks: endpoints.map { WebhookDTO($0) }))
    }

    func read(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("webhookId")
        guard let endpoint = try await services.webhooks.endpoint(id: id) else {
            throw CanteenError.notFound(.webhook, id)
        }
        return JSONResponse.make(writing: WebhookDTO(endpoint))
    }

    func delete(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("webhookId")
        let cafeID = try await services.webhooks.endpoint(id: id)?.cafeID
        try await services.webhooks.deleteEndpoint(
            id: id, audit: context.audit("webhook.delete", "webhook", id, cafe: cafeID))
        return Response(status: .noContent)
    }

    /// A new secret, shown once; the replaced one keeps signing for 24 hours.
    func rotate(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("webhookId")
        let cafeID = try await services.webhooks.endpoint(id: id)?.cafeID
        let (endpoint, secret) = try await services.webhooks.rotateSecret(
            endpointID: id, audit: context.audit("webhook.rotate_secret", "webhook", id, cafe: cafeID))
        return JSONResponse.make(writing: WebhookDTO(endpoint, secret: secret))
    }

    /// `?limit=N` (1–200, default 50): the latest deliveries, newest event first.
    func deliveries(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("webhookId")
        var limit = 50
        if let text = request.uri.queryParameters.get("limit") {
            guard let value = Int(text), (1...Self.maxDeliveries).contains(value) else {
                throw CanteenError(
                    .invalid, code: .invalidQuery,
                    message: "limit is a whole number from 1 to \(Self.maxDeliveries)", field: "limit")
            }
            limit = value
        }
        let deliveries = try await services.webhooks.deliveries(endpointID: id, limit: limit)
        return JSONResponse.make(writing: WebhookDeliveriesDTO(deliveries: deliveries.map(WebhookDeliveryDTO.init)))
    }

    /// Sends an event to the endpoint again as soon as possible (202), with the same event id.
    func redeliver(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let id = try context.parameters.path("webhookId")
        let cafeID = try await services.webhooks.endpoint(id: id)?.cafeID
        let delivery = try await services.webhooks.redeliver(
            endpointID: id, eventID: try context.parameters.path("eventId"),
            audit: context.audit("webhook.redeliver", "webhook", id, cafe: cafeID))
        return JSONResponse.make(writing: WebhookDeliveryDTO(delivery), status: .accepted)
    }
}

// MARK: - Wire shapes

/// A webhook endpoint; `secret` only in the answers that create or rotate it.
struct WebhookDTO: JSONWritable {
    let endpoint: WebhookEndpoint
    var secret: String?

    init(_ endpoint: WebhookEndpoint, secret: String? = nil) {
        self.endpoint = endpoint
        self.secret = secret
    }

    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("cafeId", endpoint.cafeID)
            object.field("createdAt", endpoint.createdAt)
            object.field("events", endpoint.events.map(\.rawValue))
            object.field("id", endpoint.id)
            object.field("previousSecretExpiresAt", endpoint.previousSecretExpiresAt)
            object.field("secret", secret)
            object.field("url", endpoint.url)
        }
    }
}

struct WebhookListDTO: JSONWritable {
    let webhooks: [WebhookDTO]

    func write(to json: inout JSONWriter) {
        json.object { object in object.field("webhooks", webhooks) }
    }
}

/// One event's delivery to one endpoint, with its attempts.
struct WebhookDeliveryDTO: JSONWritable {
    let delivery: WebhookDelivery

    init(_ delivery: WebhookDelivery) { self.delivery = delivery }

    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("attempts", delivery.attempts.map(WebhookAttemptDTO.init))
            object.field("createdAt", delivery.event.createdAt)
            object.field("eventId", delivery.event.id)
            object.field("nextAttemptAt", delivery.nextAttemptAt)
            object.field("orderId", delivery.event.orderID)
            object.field("sequence", delivery.event.sequence)
            object.field("state", delivery.state.rawValue)
            object.field("type", delivery.event.type.rawValue)
        }
    }
}

struct WebhookAttemptDTO: JSONWritable {
    let attempt: WebhookAttempt

    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("attemptedAt", attempt.attemptedAt)
            object.field("error", attempt.error)
            object.field("latencyMs", attempt.latencyMilliseconds)
            object.field("statusCode", attempt.statusCode)
        }
    }
}

struct WebhookDeliveriesDTO: JSONWritable {
    let deliveries: [WebhookDeliveryDTO]

    func write(to json: inout JSONWriter) {
        json.object { object in object.field("deliveries", deliveries) }
    }
}
