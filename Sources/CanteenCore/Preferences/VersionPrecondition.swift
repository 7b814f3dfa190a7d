import Foundation

/// An `If-Match` condition on a preference document's version, checked inside the write.
public enum VersionPrecondition: Hashable, Sendable {
    /// `*`: the document must exist (the user has written before).
    case exists
    /// One of these entity tags must be the current one (`"0"` means "never written").
    case matches([String])

    /// Reads an `If-Match` header: `*`, or a comma-separated list of entity tags.
    public init(ifMatch header: String) {
        let tags = header.split(separator: ",").map { $0.trimmingHTTPWhitespace() }
        self = tags.contains("*") ? .exists : .matches(tags)
    }

    /// The strong entity tag of a document version: `"7"`.
    public static func entityTag(_ version: Int64) -> String { "\"\(version)\"" }

    /// Whether a document at `version` satisfies the condition (weak tags never do: If-Match
    /// compares strongly).
    public func isSatisfied(by version: Int64) -> Bool {
        switch self {
        case .exists: version > 0
        case .matches(let tags): tags.contains(Self.entityTag(version))
        }
    }

    /// The 412 `version_mismatch` error for a document now at `version`.
    public static func mismatch(current version: Int64) -> CanteenError {
        CanteenError(.preconditionFailed, code: "version_mismatch",
                     message: "the preferences changed since you read them; they are now at version \(version) (ETag \(entityTag(version)))",
                     parameters: ["version": "\(version)"])
    }
}
