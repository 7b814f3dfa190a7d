import Foundation

/// A condition on a preference document's version, checked inside the write.
public enum VersionPrecondition: Hashable, Sendable {
    /// The document must exist (the user has written before).
    case exists
    /// The current version must be one of these (0 means "never written").
    case matches([Int64])

    /// Whether a document at `version` satisfies the condition.
    public func isSatisfied(by version: Int64) -> Bool {
        switch self {
        case .exists: version > 0
        case .matches(let versions): versions.contains(version)
        }
    }

    /// The `version_mismatch` error for a document now at `version`.
    public static func mismatch(current version: Int64) -> CanteenError {
        CanteenError(
            .preconditionFailed, code: .versionMismatch,
            message: "the preferences changed since you read them; they are now at version \(version)",
            parameters: ["version": "\(version)"])
    }
}
