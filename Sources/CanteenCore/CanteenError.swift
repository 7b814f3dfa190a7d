import Foundation

/// A domain error: a stable machine-readable `code`, an English message, the JSON path of the
/// offending field when there is one, the values the message was built from (for translation),
/// and the error that caused it, if any (for the log).
public struct CanteenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is, in domain terms; the API layer decides how to answer it.
    public enum Kind: String, Sendable, Hashable {
        /// The input is malformed or breaks a rule (422, or 400 for unparseable input).
        case invalid
        /// The input could not be parsed at all (400).
        case malformed
        /// The thing named does not exist (404).
        case notFound
        /// The request conflicts with the current state (409).
        case conflict
        /// No credentials, or unknown ones (401).
        case unauthenticated
        /// Valid credentials without the right (403).
        case forbidden
        /// The caller's idea of a version is out of date (a preference document changed).
        case preconditionFailed
        /// Something on our side failed (500); the message never leaks internals.
        case `internal`
        /// A part the request needs (the database) cannot be reached right now; retrying later may
        /// succeed (503). Nothing was changed by this request, or it is safe to retry (orders carry
        /// an idempotency key).
        case unavailable
        /// Too many failed attempts lately (wrong codes, unknown cards): nothing was checked;
        /// `parameters["seconds"]` says when to try again (429).
        case throttled
    }

    public var kind: Kind
    /// Stable snake_case identifier, e.g. `item_unavailable`.
    public var code: ErrorCode
    /// Human-readable English message.
    public var message: String
    /// JSON path of the field at fault (`items[3].price`), or nil.
    public var field: String?
    /// Named values used in the message, so a translation can place them.
    public var parameters: [String: String]
    /// What caused this error beneath Canteen (SQLite's `SQLITE_BUSY`, a driver's error): logged
    /// where the error is answered, never shown to a client, and not part of equality.
    public var underlying: (any Error)?

    public init(
        _ kind: Kind, code: ErrorCode, message: String, field: String? = nil,
        parameters: [String: String] = [:], underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
        self.parameters = parameters
        self.underlying = underlying
    }

    /// Errors are equal when a client would see the same: the cause is not compared.
    public static func == (lhs: CanteenError, rhs: CanteenError) -> Bool {
        lhs.kind == rhs.kind && lhs.code == rhs.code && lhs.message == rhs.message && lhs.field == rhs.field
            && lhs.parameters == rhs.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(field)
        hasher.combine(parameters)
    }

    public var description: String {
        if let field { return "\(field): \(message)" }
        return message
    }

}

/// The things a request can name that may not exist; each has its own `…_not_found` code.
public enum MissingThing: String, Sendable {
    case cafe, beacon, item, order, ticket, token, preference, coupon, webhook, delivery

    /// `cafe_not_found`, `ticket_not_found`, …
    public var code: ErrorCode {
        switch self {
        case .cafe: .cafeNotFound
        case .beacon: .beaconNotFound
        case .item: .itemNotFound
        case .order: .orderNotFound
        case .ticket: .ticketNotFound
        case .token: .tokenNotFound
        case .preference: .preferenceNotFound
        case .coupon: .couponNotFound
        case .webhook: .webhookNotFound
        case .delivery: .deliveryNotFound
        }
    }
}

extension CanteenError {
    /// `no cafe with id 'x'` with the thing's own `…_not_found` code.
    public static func notFound(_ what: MissingThing, _ id: String, field: String? = nil) -> CanteenError {
        CanteenError(
            .notFound, code: what.code, message: "no \(what.rawValue) with id '\(id)'", field: field,
            parameters: ["id": id])
    }
}
