import CanteenCore
import CanteenJSON
import Foundation

extension OrderEvent {
    /// The ticket statuses an event row stores as a JSON object (nil: the order was just placed);
    /// anything else is an error naming the row.
    public static func storedTicketStatuses(_ text: String?, eventID id: String) throws -> [String: TicketStatus]? {
        guard let text else { return nil }
        guard case .object(let object)? = try? JSONValue.parse(Data(text.utf8)) else {
            throw StoredRow.invalid(table: "orderEvent", id: id, "its tickets are not a JSON object")
        }
        var statuses: [String: TicketStatus] = [:]
        for (ticketID, value) in object {
            guard let name = value.stringValue, let status = TicketStatus(rawValue: name) else {
                throw StoredRow.invalid(table: "orderEvent", id: id, "ticket '\(ticketID)' has no ticket status")
            }
            statuses[ticketID] = status
        }
        return statuses
    }
}
