import CanteenCore
import CanteenJSON
import Foundation

extension AuditChange {
    /// The changes as both stores keep them: a JSON array of `{"field", "before"?, "after"?}`
    /// (a missing member: the field did not exist then).
    public static func storedText(_ changes: [AuditChange]) -> String {
        let array = JSONValue.array(changes.map(\.json))
        return String(decoding: array.encoded(), as: UTF8.self)
    }

    /// The changes of a stored row; anything else is an error naming the row.
    public static func stored(_ text: String, entryID: Int64) throws -> [AuditChange] {
        guard case .array(let elements)? = try? JSONValue.parse(Data(text.utf8)) else {
            throw StoredRow.invalid(table: "auditEntry", id: "\(entryID)", "its changes are not a JSON array")
        }
        return try elements.map { element in
            guard let object = element.objectValue, let field = object["field"]?.stringValue else {
                throw StoredRow.invalid(table: "auditEntry", id: "\(entryID)", "a change names no field")
            }
            return AuditChange(field: field, before: object["before"], after: object["after"])
        }
    }
}
