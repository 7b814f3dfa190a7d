import Foundation

/// Where the audit log is read. Entries are written by the stores that make the changes, each
/// in the change's own transaction.
public protocol AuditRepository: Sendable {
    /// The entries `query` selects, newest first.
    func auditEntries(_ query: AuditQuery) async throws -> AuditPage
}
