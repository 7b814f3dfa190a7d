import CanteenJSON
import Foundation

/// Where webhook endpoints and the deliveries of the order-event outbox are kept.
public protocol WebhookRepository: Sendable {
    /// Registers an endpoint; it is sent the events committed from now on. The secret is
    /// returned once. `cafe_not_found` when `cafeID` names no café.
    /// `audit` (when given, here and below) is recorded in the same transaction, never a secret.
    func createEndpoint(
        _ registration: WebhookRegistration,
        audit: AuditEntry?
    ) async throws -> (endpoint: WebhookEndpoint, secret: String)
    /// Every endpoint, oldest first.
    func endpoints() async throws -> [WebhookEndpoint]
    /// One endpoint, or nil.
    func endpoint(id: String) async throws -> WebhookEndpoint?
    /// Deletes an endpoint with its deliveries; `webhook_not_found`.
    func deleteEndpoint(id: String, audit: AuditEntry?) async throws
    /// Replaces the secret; the replaced one keeps signing for `WebhookEndpoint.secretOverlap`.
    func rotateSecret(endpointID: String, audit: AuditEntry?) async throws -> (
        endpoint: WebhookEndpoint, secret: String
    )
    /// The endpoint's latest deliveries with their attempts, newest event first; `webhook_not_found`.
    func deliveries(endpointID: String, limit: Int) async throws -> [WebhookDelivery]
    /// Delivers an event to an endpoint again as soon as possible, with a fresh retry period
    /// (`delivery_not_found` when the endpoint was never sent that event).
    func redeliver(endpointID: String, eventID: String, audit: AuditEntry?) async throws -> WebhookDelivery
    /// One round of the delivery service, in one transaction: records the attempts that
    /// finished, turns new events into deliveries for the endpoints that want them, and hands
    /// out up to `limit` deliveries that are due and not held back by an earlier pending event
    /// of the same order, leased until `now + lease` (a crashed attempt is retried after it).
    func deliveryRound(
        recording results: [WebhookAttemptResult], claim limit: Int, now: Date,
        lease: TimeInterval
    ) async throws -> WebhookRound
}

extension WebhookRepository {
    public func createEndpoint(_ registration: WebhookRegistration) async throws -> (
        endpoint: WebhookEndpoint,
        secret: String
    ) {
        try await createEndpoint(registration, audit: nil)
    }

    public func deleteEndpoint(id: String) async throws { try await deleteEndpoint(id: id, audit: nil) }

    public func rotateSecret(endpointID: String) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        try await rotateSecret(endpointID: endpointID, audit: nil)
    }

    public func redeliver(endpointID: String, eventID: String) async throws -> WebhookDelivery {
        try await redeliver(endpointID: endpointID, eventID: eventID, audit: nil)
    }
}
