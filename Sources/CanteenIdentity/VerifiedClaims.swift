import CanteenCore
import Foundation

/// The claims of a provider's token that passed every check, and who they say the person is.
public struct VerifiedClaims: Sendable {
    public let claims: [String: JSONValue]

    public init(claims: [String: JSONValue]) { self.claims = claims }

    /// A claim as a string (numbers are written out: some providers give numeric ids).
    public func string(_ name: String) -> String? {
        switch claims[name] {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        default: nil
        }
    }

    /// The person's name: `name`, else `given_name family_name`, else `preferred_username`.
    public var name: String? {
        if let name = string("name"), !name.isEmpty { return name }
        let parts = [string("given_name"), string("family_name")].compactMap { $0 }.filter { !$0.isEmpty }
        if !parts.isEmpty { return parts.joined(separator: " ") }
        return string("preferred_username")
    }

    public var email: String? { string("email") }

    /// The groups the person is in (`groups`: a list of strings, or one string).
    public var groups: [String] {
        switch claims["groups"] {
        case .array(let values)?: values.compactMap(\.stringValue)
        case .string(let group)?: [group]
        default: []
        }
    }
}
