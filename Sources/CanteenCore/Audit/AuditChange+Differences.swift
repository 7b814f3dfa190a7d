import CanteenJSON
import Foundation

extension AuditChange {
    /// The fields `before` and `after` differ in, as paths: objects member by member
    /// (`pickup.capacity`), arrays of objects with an `id` element by element (`items[latte].price`),
    /// other arrays and values whole. A thing that did not exist (nil) differs in every field.
    public static func differences(before: JSONValue?, after: JSONValue?) -> [AuditChange] {
        var changes: [AuditChange] = []
        compare(before, after, path: "", into: &changes)
        return changes
    }

    private static func compare(
        _ before: JSONValue?, _ after: JSONValue?, path: String, into changes: inout [AuditChange]
    ) {
        guard before != after else { return }
        switch (before, after) {
        case (.object(let old)?, .object(let new)?):
            for key in Set(old.keys).union(new.keys).sorted() {
                compare(old[key], new[key], path: path.isEmpty ? key : "\(path).\(key)", into: &changes)
            }
        case (.array(let old)?, .array(let new)?):
            guard let oldByID = byID(old), let newByID = byID(new) else {
                changes.append(AuditChange(field: path, before: before, after: after))
                return
            }
            var ids = old.compactMap { $0.objectValue?["id"]?.stringValue }
            for case let id? in new.map({ $0.objectValue?["id"]?.stringValue }) where oldByID[id] == nil {
                ids.append(id)
            }
            for id in ids {
                compare(oldByID[id], newByID[id], path: "\(path)[\(id)]", into: &changes)
            }
            let oldOrder = old.compactMap { $0.objectValue?["id"]?.stringValue }.filter { newByID[$0] != nil }
            let newOrder = new.compactMap { $0.objectValue?["id"]?.stringValue }.filter { oldByID[$0] != nil }
            if oldOrder != newOrder {
                changes.append(
                    AuditChange(
                        field: "\(path).order", before: .array(oldOrder.map(JSONValue.string)),
                        after: .array(newOrder.map(JSONValue.string))))
            }
        case (nil, .object(let new)?) where !path.isEmpty || !new.isEmpty:
            if path.isEmpty {
                for key in new.keys.sorted() { compare(nil, new[key], path: key, into: &changes) }
            } else {
                changes.append(AuditChange(field: path, before: nil, after: after))
            }
        case (.object(let old)?, nil) where path.isEmpty:
            for key in old.keys.sorted() { compare(old[key], nil, path: key, into: &changes) }
        default:
            changes.append(AuditChange(field: path, before: before, after: after))
        }
    }

    /// The elements by their string `id`, when every element is an object with a distinct one.
    private static func byID(_ elements: [JSONValue]) -> [String: JSONValue]? {
        var found: [String: JSONValue] = [:]
        for element in elements {
            guard let id = element.objectValue?["id"]?.stringValue, found[id] == nil else { return nil }
            found[id] = element
        }
        return found
    }
}
