import Foundation

/// A domain error: a stable machine-readable `code`, an English message, the JSON path of the
/// offending field when there is one, and the values the message was built from (for translation).
public struct CanteenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; the API layer maps each kind to an HTTP status.
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
        /// A precondition such as `If-Match` failed (412).
        case preconditionFailed
        /// The request body is larger than allowed (413).
        case tooLarge
        /// The body is not in a format the route reads (415).
        case unsupportedMediaType
        /// The route exists but not for this method (405).
        case methodNotAllowed
        /// Something on our side failed (500); the message never leaks internals.
        case `internal`
    }

    public var kind: Kind
    /// Stable snake_case identifier, e.g. `item_unavailable`.
    public var code: String
    /// Human-readable English message.
    public var message: String
    /// JSON path of the field at fault (`items[3].price`), or nil.
    public var field: String?
    /// Named values used in the message, so a translation can place them.
    public var parameters: [String: String]

    public init(_ kind: Kind, code: String, message: String, field: String? = nil,
                parameters: [String: String] = [:]) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
        self.parameters = parameters
    }

    public var description: String {
        if let field { return "\(field): \(message)" }
        return message
    }

}

extension CanteenError {
    public static func notFound(_ what: String, _ id: String, field: String? = nil) -> CanteenError {
        CanteenError(.notFound, code: "\(what)_not_found", message: "no \(what.replacingOccurrences(of: "_", with: " ")) with id '\(id)'",
                     field: field, parameters: ["id": id])
    }
}
